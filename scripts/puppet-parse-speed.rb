# Puppet 7's own parser on a directory of manifests, timed as `cargo bench --bench parse` times
# pbc's: every file is read into memory first, each round parses them all (Puppet's lexer and
# racc grammar to its AST, without validation, which pbc's `parse` figure leaves out too), and
# the best round counts. Prints one line:
#   puppet parse: FILES files, MB MB, best of ROUNDS: SECONDS s, SPEED MB/s (N files with errors)
# Usage: ruby scripts/puppet-parse-speed.rb DIR [ROUNDS]   (3 rounds unless given)
require 'puppet'

dir = ARGV[0]
rounds = Integer(ARGV[1] || 3, exception: false)
abort 'usage: puppet-parse-speed.rb DIR [ROUNDS]' unless dir && File.directory?(dir) && rounds&.positive?
tmp = ENV['TMPDIR'] || '/var/tmp'
Puppet.initialize_settings(['--confdir', "#{tmp}/pbc-parse-speed/conf", '--vardir', "#{tmp}/pbc-parse-speed/var",
                            '--codedir', "#{tmp}/pbc-parse-speed/code"])
Puppet::Util::Log.close_all

sources = Dir.glob('**/*.pp', base: dir).sort.filter_map do |rel|
  path = File.join(dir, rel)
  [rel, File.read(path, mode: 'rb').force_encoding('UTF-8')] if File.file?(path)
end
bytes = sources.sum { |_, text| text.bytesize }
abort "no .pp files under #{dir}" if bytes.zero?

best = Float::INFINITY
errors = 0
rounds.times do
  errors = 0
  # The last round's garbage is collected outside the clock; what a round makes, it pays for.
  GC.start
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  sources.each do |rel, text|
    Puppet::Pops::Parser::Parser.new.parse_string(text, rel)
  rescue StandardError, SyntaxError
    errors += 1
  end
  best = [best, Process.clock_gettime(Process::CLOCK_MONOTONIC) - started].min
end
printf("puppet parse: %d files, %.2f MB, best of %d: %.3f s, %.3f MB/s (%d files with errors)\n",
       sources.size, bytes / 1e6, rounds, best, bytes / 1e6 / best, errors)
