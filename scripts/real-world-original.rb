# The real-world suite's second half (scripts/real-world-conformance.sh): each repository laid
# out as its authors wrote it (WORK/original/ENV, its own hiera.yaml, `empty-levels` naming the
# levels pbc cannot search), looked up by pbc with `--empty-level` for each, must give exactly
# the answers pbc gave on the copy Puppet answered (WORK/envs/ENV), for every key and factset;
# and without `--empty-level`, no answer at all where such a level is in the way (never a
# guess). Usage: ruby real-world-original.rb PBC WORK
require 'json'
require 'yaml'
require 'open3'

pbc, work = ARGV
abort 'usage: ruby real-world-original.rb PBC WORK' unless work
facts_dir = File.join(work, 'envs', 'facts')
compared = 0
refused = 0
failures = []
Dir.glob(File.join(work, 'original', '*')).sort.each do |original|
  env = File.basename(original)
  copy = File.join(work, 'envs', env)
  levels = File.readlines(File.join(original, 'empty-levels')).map(&:chomp).reject(&:empty?)
  keys = Dir.glob("#{original}/**/*.yaml").reject { |f| File.basename(f) == 'hiera.yaml' }.flat_map do |f|
    doc = YAML.safe_load(File.read(f), permitted_classes: [Symbol], aliases: true)
    doc.is_a?(Hash) ? doc.keys.map(&:to_s) : []
  rescue StandardError
    []
  end
  keys = (keys.uniq - ['lookup_options']).sort
  Dir.children(facts_dir).sort.each do |file|
    node = File.basename(file, '.json')
    common = ['lookup', '--facts', File.join(facts_dir, file), '--node', node, '--format', 'json', '--quiet']
    empty = levels.flat_map { |l| ['--empty-level', l] }
    ours, = Open3.capture3(pbc, *common, '-C', original, *empty, *keys)
    theirs, = Open3.capture3(pbc, *common, '-C', copy, *keys)
    compared += keys.size
    failures << "#{env} #{node}: with --empty-level, pbc answers the repository as written otherwise than the copy Puppet answered" if ours != theirs
    next if levels.empty?

    blind, = Open3.capture3(pbc, *common, '-C', original, *keys)
    errors = (JSON.parse(blind)['errors'] || {}) rescue {}
    refused += errors.count { |_, e| e.start_with?('HIERA_LEVEL_NOT_SEARCHABLE') }
    answered = keys.size - errors.size
    failures << "#{env} #{node}: without --empty-level, #{answered} keys answered past a level pbc cannot search" if answered.positive?
  end
end
puts "as written: #{compared} answers compared with --empty-level, #{refused} refused without it (HIERA_LEVEL_NOT_SEARCHABLE), #{failures.size} failures"
failures.first(20).each { |f| puts "  #{f}" }
exit(failures.empty? ? 0 : 1)
