# Makes the nodes of docs/development.md's "At scale" measurements: COUNT factsets in OUT/nodes,
# made from the real factsets of FACTS (the real-world suite's, laid out by
# scripts/real-world-prepare.rb) in turn, each given its own `fqdn` and, for every VARIABLE
# named, a value taken in turn from the names the environment's `hieradata` directory has for it
# (`hieradata/role/*.yaml` gives `role` its 56 values in lsst-control), so that the nodes read
# different data files as a fleet's would. Then OUT/old and OUT/new
# for `pbc diff`: the environment copied twice, new with one value of `common.yaml` changed.
# Usage: ruby scripts/scale-nodes.rb ENV FACTS OUT [COUNT] [VARIABLE ...]
#   after `bash scripts/real-world-conformance.sh` has laid out target/real-world/envs:
#   ruby scripts/scale-nodes.rb target/real-world/envs/rw_lsst_it_lsst_control \
#     target/real-world/envs/facts target/scale 1000 role site cluster
require 'json'
require 'fileutils'

env, facts, out, count, *variables = ARGV
abort 'usage: ruby scale-nodes.rb ENV FACTS OUT [COUNT] [VARIABLE ...]' unless out && File.directory?(env)
count = Integer(count || 1000, exception: false)
abort 'scale-nodes: COUNT must be a positive number' unless count&.positive?
variables = %w[role site cluster] if variables.empty?

factsets = Dir.glob('*.json', base: facts).sort.map { |name| JSON.parse(File.read(File.join(facts, name))) }
abort "scale-nodes: no factsets (*.json) in #{facts}" if factsets.empty?
values = variables.to_h do |variable|
  dir = File.join(env, 'hieradata', variable)
  names = File.directory?(dir) ? Dir.children(dir).map { |name| name.delete_suffix('.yaml') }.uniq.sort : []
  abort "scale-nodes: no values for #{variable} under #{dir}" if names.empty?
  [variable, names]
end

# OUT is made anew, so it must be this script's own (or new, or empty): never a directory of
# something else given by mistake.
ours = !File.exist?(out) || (File.directory?(out) && (Dir.empty?(out) || File.directory?(File.join(out, 'nodes'))))
abort "scale-nodes: #{out} exists and is not a directory this script made" unless ours
FileUtils.rm_rf(out)
nodes = File.join(out, 'nodes')
FileUtils.mkdir_p(nodes)
count.times do |i|
  name = format('node%05d.example.org', i)
  node = factsets[i % factsets.size].merge('fqdn' => name)
  values.each { |variable, names| node[variable] = names[i % names.size] }
  File.write(File.join(nodes, "#{name}.json"), JSON.generate(node))
end

%w[old new].each { |side| FileUtils.cp_r(env, File.join(out, side)) }
common = File.join(out, 'new', 'hieradata', 'common.yaml')
text = File.read(common)
# One value changed: the first top-level key whose value is a plain or quoted scalar on its own
# line (not a block, flow collection, anchor or tag), given a different string.
changed = text.sub(/^([a-z][\w:]*): ("[\w .\/:-]*"|'[\w .\/:-]*'|[\w.\/:-]+)$/) do
  "#{Regexp.last_match(1)}: \"changed #{Regexp.last_match(2).delete(%q("'))}\""
end
abort "scale-nodes: no top-level value to change in #{common}" if changed == text
File.write(common, changed)
puts "#{count} nodes in #{nodes}; #{File.join(out, 'old')} and #{File.join(out, 'new')} differ in one value"
puts "values: #{values.map { |variable, names| "#{variable} #{names.size}" }.join(', ')}"
