# What pbc's Hiera backend adds to a catalog compile, on a large model: Puppet 7's own lookups
# (scripts/hiera-oracle.rb --pbc-times, one compile's scope) in three environments
# run side by side, alternating: no pbc level (one empty YAML file: what Puppet costs alone),
# `pbc::lookup_key` running pbc once per compile, and `pbc::lookup_key` asking `pbc serve`.
# Prints, per environment, the first key's time and the later keys' median and mean, for keys
# asked class by class (each namespace's bound keys, then three nothing binds, as Puppet asks a
# class's parameters) and for keys drawn at random from the whole model.
# Usage: ruby bridge-cost.rb PBC MODEL FACTS WORKDIR [ROUNDS]  (see scripts/bridge-cost.sh)
require 'json'
require 'fileutils'
require 'open3'

pbc, model, facts_file, work, rounds = ARGV
rounds = (rounds || 3).to_i
here = File.expand_path('..', __dir__)
FileUtils.rm_rf(work)
FileUtils.mkdir_p(work)

facts = JSON.parse(File.read(facts_file))
node = facts['fqdn'] || 'node.example.com'
# `puppet lookup --facts` wants all four.
facts['clientcert'] ||= node
facts['hostname'] ||= node.split('.').first
facts['domain'] ||= node.split('.', 2)[1] || 'example.com'
given = File.join(work, 'node.json')
File.write(given, JSON.generate(facts))

out, err, = Open3.capture3(pbc, 'lookup', '--model', model, '--facts', given, '--all', '--format', 'answers', '--quiet')
answers = JSON.parse(out) rescue abort("pbc did not answer: #{err}")
environment = answers['environment']
keys = answers['keys'].keys.reject { |k| k.start_with?('/') }
by_namespace = keys.select { |k| k.include?('::') }.group_by { |k| k.rpartition('::').first }
random = Random.new(1)
classes = by_namespace.keys.sort.sample(20, random: random).flat_map do |namespace|
  by_namespace[namespace] + %w[unbound_a unbound_b unbound_c].map { |p| "#{namespace}::#{p}" }
end
drawn = keys.sample(200, random: random)

socket = File.join(work, 'pbc.sock')
levels = {
  'none' => { 'name' => 'Common', 'path' => 'common.yaml' },
  'run' => { 'name' => 'Bindings (pbc)', 'lookup_key' => 'pbc::lookup_key',
             'options' => { 'model' => 'data/pbc/model.pbcm', 'pbc' => pbc, 'timeout' => 120 } },
  'serve' => { 'name' => 'Bindings (pbc)', 'lookup_key' => 'pbc::lookup_key',
               'options' => { 'model' => 'data/pbc/model.pbcm', 'socket' => socket } },
}
levels.each do |mode, level|
  env_dir = File.join(work, mode, environment)
  FileUtils.mkdir_p(File.join(env_dir, 'data', 'pbc'))
  FileUtils.mkdir_p(File.join(env_dir, 'modules'))
  FileUtils.cp_r(File.join(here, 'src', 'puppet', 'pbc'), File.join(env_dir, 'modules', 'pbc'))
  FileUtils.cp(model, File.join(env_dir, 'data', 'pbc', 'model.pbcm')) unless mode == 'none'
  File.write(File.join(env_dir, 'data', 'common.yaml'), "{}\n")
  File.write(File.join(env_dir, 'hiera.yaml'), JSON.generate({ 'version' => 5, 'hierarchy' => [level] }))
end
server = Process.spawn(pbc, 'serve', '--socket', socket, '--models', File.join(work, 'serve'), err: File.join(work, 'serve.log'))
at_exit do
  Process.kill('TERM', server)
  Process.wait(server)
end
50.times { File.socket?(socket) ? break : sleep(0.1) }

# One compile's lookups of `asked`: each lookup's time in microseconds, in order.
times = lambda do |mode, asked|
  out, err, = Open3.capture3('ruby', File.join(here, 'scripts', 'hiera-oracle.rb'), '--pbc-times',
                             '--environmentpath', File.join(work, mode), '--environment', environment,
                             '--node', node, '--facts', given, *asked)
  lines = out.lines.select { |l| l.start_with?('{') }.map { |l| JSON.parse(l) }
  abort "#{mode}: #{lines.size} of #{asked.size} answered: #{err.lines.last}" unless lines.size == asked.size
  lines.map { |l| l['us'] }
end

# The server loads the model on its first compile: once per model file, not per compile.
loaded = times.call('serve', drawn.first(1)).first
puts format('pbc serve loaded the model on its first compile: %.0f ms', loaded / 1000.0)
median = ->(a) { a.sort[a.size / 2] }
{ 'class by class' => classes, 'random' => drawn }.each do |pattern, asked|
  results = Hash.new { |h, k| h[k] = [] }
  rounds.times do
    levels.each_key { |mode| results[mode] << times.call(mode, asked) }
  end
  puts "#{pattern} (#{asked.size} keys, #{rounds} compiles each, alternating; medians over the compiles):"
  base = nil
  levels.each_key do |mode|
    first = median.call(results[mode].map(&:first))
    later_median = median.call(results[mode].map { |t| median.call(t.drop(1)) })
    later_mean = median.call(results[mode].map { |t| t.drop(1).sum.to_f / (t.size - 1) })
    base ||= [first, later_median, later_mean]
    added = mode == 'none' ? '' : format('   added: first %.1f ms, later %d us median, %.0f us mean',
                                         (first - base[0]) / 1000.0, later_median - base[1], later_mean - base[2])
    puts format('  %-6s first key %8.1f ms   later keys %4d us median, %5.1f us mean%s',
                mode, first / 1000.0, later_median, later_mean, added)
  end
end
