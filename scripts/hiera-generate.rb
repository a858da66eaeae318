# Generates Hiera 5 control repositories for scripts/hiera-conformance.sh: environments whose
# data covers every feature pbc's Hiera engine claims (hierarchies of path, paths, glob, globs
# and mapped_paths; interpolation of facts, trusted, top-scope variables, digs, lookup(),
# hiera(), alias(), literal() and scope(); lookup_options by key and by pattern with every
# merge strategy and its options; convert_to with every type pbc converts to, over values
# that probe Puppet's `new`; module levels with keys inside and outside their namespace
# and a default_hierarchy), hundreds of keys each, and factsets that reach different levels.
# Also two global configurations (`--hiera-config`) in GLOBALDIR: `v5/hiera.yaml` and
# `v3/hiera.yaml` (Hiera 3's format), whose data overlaps the environments' keys.
# Deterministic (fixed seed). Usage: ruby hiera-generate.rb OUTDIR [KEYS_PER_FILE [GLOBALDIR]]
require 'yaml'
require 'json'
require 'fileutils'

out = ARGV[0] or abort('usage: hiera-generate.rb OUTDIR [KEYS_PER_FILE]')
per_file = (ARGV[1] || '40').to_i
rng = Random.new(42)

def write_yaml(path, data)
  FileUtils.mkdir_p(File.dirname(path))
  File.write(path, data.to_yaml)
end

FACTSETS = {
  'debian12' => { 'os' => { 'family' => 'Debian', 'name' => 'Debian', 'release' => { 'major' => '12', 'full' => '12.5' } },
                  'kernel' => 'Linux', 'role' => 'web', 'services' => ['ntp', 'ssh'], 'datacenter' => 'ams',
                  'networking' => { 'interfaces' => { 'eth0' => { 'ip' => '10.0.0.1' } } }, 'tags' => ['a', 'b'] },
  'redhat9' => { 'os' => { 'family' => 'RedHat', 'name' => 'RedHat', 'release' => { 'major' => '9', 'full' => '9.3' } },
                 'kernel' => 'Linux', 'role' => 'db', 'services' => ['ssh'], 'datacenter' => 'lon',
                 'networking' => { 'interfaces' => {} }, 'tags' => [] },
  'windows' => { 'os' => { 'family' => 'windows', 'name' => 'windows', 'release' => { 'major' => '2019', 'full' => '2019' } },
                 'kernel' => 'windows', 'datacenter' => 'ams' },
  'ubuntu22' => { 'os' => { 'family' => 'Debian', 'name' => 'Ubuntu', 'release' => { 'major' => '22.04', 'full' => '22.04' } },
                  'kernel' => 'Linux', 'role' => 'web', 'services' => 'ntp', 'datacenter' => 'ams' },
}.freeze

def value_for(rng, key, depth = 0)
  case rng.rand(depth > 1 ? 5 : 8)
  when 0 then "#{key}-#{rng.rand(1000)}"
  when 1 then rng.rand(10_000)
  when 2 then [true, false][rng.rand(2)]
  when 3 then (rng.rand(1000) / 8.0)
  when 4 then nil
  when 5 then Array.new(rng.rand(4)) { |i| ["x#{rng.rand(6)}", rng.rand(5)][i % 2] }
  when 6 then (0...rng.rand(4)).to_h { |i| ["k#{rng.rand(6)}", value_for(rng, key, depth + 1)] }
  else
    ["%{facts.os.family}-#{key}", "%{::kernel}", "dc %{facts.datacenter}", "%{trusted.certname}",
     "ip %{facts.networking.interfaces.eth0.ip}", "first tag %{facts.tags.0}", "100%{literal('%')}",
     "scope %{scope('facts.os.name')}", "role=%{role}", "quoted %{facts.\"os\".name}",
     "%{facts.missing.deeper}|", "%{}empty%{::}"][rng.rand(12)]
  end
end

ENV_HIERA = {
  'version' => 5,
  'defaults' => { 'datadir' => 'data', 'data_hash' => 'yaml_data' },
  'hierarchy' => [
    { 'name' => 'Per node', 'path' => 'nodes/%{trusted.certname}.yaml' },
    { 'name' => 'Per OS', 'paths' => ['os/%{facts.os.name}-%{facts.os.release.major}.yaml', 'os/%{facts.os.family}.yaml'] },
    { 'name' => 'Roles', 'glob' => 'roles/%{facts.role}/*.yaml' },
    { 'name' => 'Services', 'mapped_paths' => ['facts.services', 'service', 'services/%{service}.yaml'] },
    { 'name' => 'Datacenters', 'globs' => ['dc/%{facts.datacenter}.yaml', 'dc/all-*.yaml'] },
    { 'name' => 'JSON data', 'path' => 'json/common.json', 'data_hash' => 'json_data' },
    { 'name' => 'Elsewhere', 'datadir' => 'other', 'path' => 'common.yaml' },
    { 'name' => 'Common', 'path' => 'common.yaml' },
  ],
}.freeze

# `convert_to` targets (a type, or a type and `new`'s arguments) and the values they meet:
# strings Puppet's Integer, Float, Numeric and Boolean read in their own ways, numbers,
# collections for String, Array and Hash.
CONVERT_TYPES = [
  'Sensitive', 'Integer', ['Integer', 16], ['Integer', 8, true], ['Integer', 2], 'Float', ['Float', true],
  'Numeric', ['Numeric', true], 'Boolean', 'String', 'Array', ['Array', true], ['Array', false], 'Hash',
  'Optional[Integer]', 'NotUndef[String]', 'Integer[0, 10]', 'Float[0.0, 1]', 'String[2]', 'String[0, 3]',
  'Array[String]', 'Array[Any, 2]', 'Hash[String, Integer]', 'Sensitive[String]', 'Variant[Integer, String]',
  'Any', 'Data', 'Scalar', "Enum[abc, 'Yes']", 'Optional[Array]', 'Undef'
].freeze
CONVERT_VALUES = [
  '010', '09', '+ 42', '-0x10', '1_000', ' 42', '0b101', '42 ', '0', '00', '1.5', '1e3', '1.', '0x1F', '- 3',
  '0e5', '0.5', '-0b11', '+0b11', 'Yes', 'no', 'N', 'true', 'maybe', '', 'abc', 'héllo', '12 monkeys', "\t7",
  '1e-2', '0.0e1', '-1.5', 'ff', '777', '101', '12:30', 'on', '1,000',
  0, 7, -3, 2.5, 3.0, 1.0e15, 0.0, -0.5, 12, true, false, nil,
  [], ['a', 1], [['a', 1], ['b', 2]], ['a', 1, 'b'], ['x', 'y'], [1, [2, 3]],
  ["it's", 'a"b', "tab\there", 1.5, nil, { 'k' => 'v' }, '$x', 'back\\slash', "nl\nx", 'é'],
  {}, { 'a' => 1, 'b' => [1, 2] }, { 'n' => 'one' },
].freeze

def generate_environment(dir, rng, per_file, name)
  FileUtils.rm_rf(dir)
  write_yaml("#{dir}/hiera.yaml", ENV_HIERA)
  files = %w[nodes/n-debian12.example.com nodes/n-redhat9.example.com os/Debian-12 os/Debian os/RedHat
             os/Ubuntu-22.04 roles/web/a roles/web/b roles/db/main services/ntp services/ssh
             dc/ams dc/all-one dc/all-two common]
  shared = Array.new(per_file) { |i| "#{name}::shared_#{i}" }
  merged_keys = Array.new(20) { |i| ["#{name}::deep_#{i}", "#{name}::hash_#{i}", "#{name}::uniq_#{i}",
                                     "#{name}::knock_#{i}", "#{name}::sorted_#{i}", "#{name}::harr_#{i}"] }.flatten
  files.each do |f|
    data = {}
    shared.each { |k| data[k] = value_for(rng, k) if rng.rand(3).zero? }
    Array.new(per_file / 4) { |i| data["#{name}::only_#{f.tr('/', '_')}_#{i}"] = value_for(rng, "o#{i}") }
    merged_keys.each do |k|
      next unless rng.rand(2).zero?

      data[k] = if k.include?('uniq') || k.include?('sorted')
                  Array.new(1 + rng.rand(3)) { "v#{rng.rand(5)}" }
                elsif k.include?('knock')
                  { 'list' => Array.new(2) { ['--', "--v#{rng.rand(4)}", "v#{rng.rand(4)}"][rng.rand(3)] },
                    'name' => ["--gone", "kept#{rng.rand(3)}"][rng.rand(2)] }
                elsif k.include?('harr')
                  Array.new(1 + rng.rand(2)) { { "h#{rng.rand(3)}" => rng.rand(9) } }
                else
                  { "a#{rng.rand(3)}" => { "b#{rng.rand(3)}" => [rng.rand(4), rng.rand(4)] }, 'c' => "v#{rng.rand(3)}" }
                end
    end
    data["#{name}::interp_#{f.tr('/', '_')}"] = "from #{f} on %{facts.os.name}"
    write_yaml("#{dir}/data/#{f}.yaml", data)
  end
  common = YAML.load_file("#{dir}/data/common.yaml")
  common['lookup_options'] = {
    "^#{name}::deep_" => { 'merge' => 'deep' },
    "^#{name}::hash_" => { 'merge' => 'hash' },
    "^#{name}::uniq_" => { 'merge' => 'unique' },
    "^#{name}::knock_" => { 'merge' => { 'strategy' => 'deep', 'knockout_prefix' => '--' } },
    "^#{name}::sorted_" => { 'merge' => { 'strategy' => 'deep', 'sort_merged_arrays' => true } },
    "^#{name}::harr_" => { 'merge' => { 'strategy' => 'deep', 'merge_hash_arrays' => true } },
    "#{name}::shared_0" => { 'merge' => 'first' },
  }
  common["#{name}::looked"] = "lookup: %{lookup('#{name}::shared_1')}"
  common["#{name}::hiera"] = "hiera: %{hiera('#{name}::interp_common')}"
  common["#{name}::aliased"] = "%{alias('#{name}::deep_0')}"
  common["#{name}::aliased_missing"] = "%{alias('#{name}::nowhere')}"
  common["#{name}::lookup_missing"] = "[%{lookup('#{name}::nowhere')}]"
  common["#{name}::chain"] = "%{lookup('#{name}::looked')}!"
  common["#{name}::nested"] = { 'list' => ['%{facts.os.family}', { '%{facts.kernel}' => '%{trusted.hostname}' }] }
  # convert_to: each type over a sample of the values (some keys also in an OS file, so the
  # strategies merge before converting); a converted value interpolated and aliased.
  CONVERT_TYPES.each_with_index do |type, t|
    CONVERT_VALUES.each_with_index do |value, v|
      next unless rng.rand(4).zero?

      key = "#{name}::conv_#{t}_#{v}"
      common['lookup_options'][key] = { 'convert_to' => Marshal.load(Marshal.dump(type)) }
      common[key] = Marshal.load(Marshal.dump(value)) # no YAML aliases
    end
  end
  os_debian = YAML.load_file("#{dir}/data/os/Debian.yaml")
  common.keys.grep(/::conv_/).each_slice(7) { |slice| os_debian[slice.first] = ['1', 'b'] }
  write_yaml("#{dir}/data/os/Debian.yaml", os_debian)
  common['lookup_options']["#{name}::conv_secret"] = { 'convert_to' => 'Sensitive' }
  common["#{name}::conv_secret"] = 'hunter2'
  common["#{name}::conv_uses_secret"] = "pw=%{lookup('#{name}::conv_secret')}"
  common["#{name}::conv_alias_secret"] = "%{alias('#{name}::conv_secret')}"
  common['lookup_options']["^#{name}::conv_pattern_"] = { 'convert_to' => ['Array', true] }
  common["#{name}::conv_pattern_a"] = 'one'
  common["#{name}::conv_pattern_b"] = %w[one two]
  write_yaml("#{dir}/data/common.yaml", common)
  FileUtils.mkdir_p("#{dir}/data/json")
  File.write("#{dir}/data/json/common.json", JSON.pretty_generate({ "#{name}::json_key" => { 'n' => 1, 'l' => [1, 'two'] },
                                                                    "#{name}::shared_2" => 'from json' }))
  write_yaml("#{dir}/other/common.yaml", { "#{name}::other_dir" => 'elsewhere', "#{name}::shared_3" => 'from other' })
  # Plain scalars as Ruby's YAML reads them (YAML 1.1: yes/on are Booleans, 010 is octal,
  # 12:30 is sexagesimal, a float needs its dot), written as text since to_yaml would quote them.
  File.open("#{dir}/other/common.yaml", 'a') do |f|
    %w[12:30 1:30.5 -1:30 010 08 0b101 1,000 1_000 0x1F yes On off y NO 1e3 1.0e+3 1. .5 -. ~ Null 0_ 1.5E+3
       10.0.0.1 web01].each_with_index { |plain, i| f.puts("#{name}::plain_#{i}: #{plain}") }
  end

  # Modules: one with data in its namespace and outside it, one with a default hierarchy,
  # one whose lookup_options use patterns.
  mod_hiera = {
    'version' => 5,
    'defaults' => { 'datadir' => 'data', 'data_hash' => 'yaml_data' },
    'hierarchy' => [{ 'name' => 'os', 'path' => 'os/%{facts.os.family}.yaml' }, { 'name' => 'common', 'path' => 'common.yaml' }],
  }
  %w[alpha beta].each do |m|
    write_yaml("#{dir}/modules/#{m}/hiera.yaml", mod_hiera)
    FileUtils.mkdir_p("#{dir}/modules/#{m}/manifests")
    File.write("#{dir}/modules/#{m}/manifests/init.pp", "class #{m} {}\n")
    %w[os/Debian os/RedHat common].each do |f|
      data = {}
      Array.new(per_file) { |i| "#{m}::k#{i}" }.each { |k| data[k] = value_for(rng, k) if rng.rand(2).zero? }
      data["#{m}::list"] = Array.new(2) { "#{m}-#{rng.rand(5)}" }
      data["#{m}::settings"] = { "s#{rng.rand(3)}" => rng.rand(9), 'common' => f }
      data["outside_#{m}"] = 'not in the namespace'
      write_yaml("#{dir}/modules/#{m}/data/#{f}.yaml", data)
    end
    common = YAML.load_file("#{dir}/modules/#{m}/data/common.yaml")
    common['lookup_options'] = { "#{m}::list" => { 'merge' => 'unique' }, "^#{m}::settings" => { 'merge' => 'hash' } }
    write_yaml("#{dir}/modules/#{m}/data/common.yaml", common)
  end
  # The environment also sets some module keys: the environment level comes first.
  env_common = YAML.load_file("#{dir}/data/common.yaml")
  env_common['alpha::list'] = ['from-env']
  env_common['alpha::settings'] = { 'env' => true }
  env_common['alpha::k0'] = 'env wins'
  write_yaml("#{dir}/data/common.yaml", env_common)

  write_yaml("#{dir}/modules/gamma/hiera.yaml", {
    'version' => 5,
    'defaults' => { 'datadir' => 'data', 'data_hash' => 'yaml_data' },
    'hierarchy' => [{ 'name' => 'common', 'path' => 'common.yaml' }],
    'default_hierarchy' => [{ 'name' => 'defaults', 'path' => 'defaults.yaml' }],
  })
  FileUtils.mkdir_p("#{dir}/modules/gamma/manifests")
  File.write("#{dir}/modules/gamma/manifests/init.pp", "class gamma {}\n")
  write_yaml("#{dir}/modules/gamma/data/common.yaml", { 'gamma::set' => 'in common', 'gamma::list' => ['c'] })
  write_yaml("#{dir}/modules/gamma/data/defaults.yaml", {
    'lookup_options' => { 'gamma::merged_default' => { 'merge' => 'unique' } },
    'gamma::set' => 'default only when nothing else', 'gamma::only_default' => 'from defaults',
    'gamma::merged_default' => %w[x y x], 'gamma::list' => ['d'],
  })
end

FileUtils.mkdir_p(out)
%w[production staging].each { |e| generate_environment("#{out}/#{e}", rng, per_file, e) }

# An environment with the deprecated data provider settings instead of hiera.yaml files: the
# environment's and module delta's data come from Hiera's default hierarchy
# (data/common.yaml); module epsilon names no provider, so its data is never read.
legacy = "#{out}/legacy"
FileUtils.rm_rf(legacy)
FileUtils.mkdir_p(legacy)
File.write("#{legacy}/environment.conf", "# deprecated, still read by Puppet 7\nenvironment_data_provider = hiera\n")
write_yaml("#{legacy}/data/common.yaml", { 'legacy::env' => 'from the default hierarchy', 'delta::k' => 'the environment first',
                                           'legacy::facts' => '%{facts.os.family}' })
write_yaml("#{legacy}/data/os/Debian.yaml", { 'legacy::env' => 'never: the default hierarchy has common.yaml only' })
%w[delta epsilon].each do |m|
  metadata = { 'name' => "example-#{m}", 'version' => '1.0.0', 'author' => 'example', 'summary' => m,
               'license' => 'Apache-2.0', 'source' => 'https://example.com', 'dependencies' => [] }
  metadata['data_provider'] = 'hiera' if m == 'delta'
  FileUtils.mkdir_p("#{legacy}/modules/#{m}/manifests")
  File.write("#{legacy}/modules/#{m}/metadata.json", JSON.pretty_generate(metadata))
  File.write("#{legacy}/modules/#{m}/manifests/init.pp", "class #{m} {}\n")
  write_yaml("#{legacy}/modules/#{m}/data/common.yaml", { "#{m}::k" => "from #{m}", "#{m}::only" => "#{m} only" })
end
if (globals = ARGV[2])
  FileUtils.rm_rf(globals)
  FileUtils.mkdir_p("#{globals}/v3")
  write_yaml("#{globals}/v5/hiera.yaml", {
    'version' => 5,
    'defaults' => { 'datadir' => 'data', 'data_hash' => 'yaml_data' },
    'hierarchy' => [{ 'name' => 'Global per OS', 'path' => 'os/%{facts.os.family}.yaml' },
                    { 'name' => 'Global common', 'path' => 'common.yaml' }],
  })
  global_data = lambda do |file|
    data = {}
    %w[production staging].each do |e|
      Array.new(per_file) { |i| "#{e}::shared_#{i}" }.each { |k| data[k] = value_for(rng, k) if rng.rand(4).zero? }
      Array.new(20) { |i| "#{e}::deep_#{i}" }.each { |k| data[k] = { 'g' => { 'b0' => [9] } } if rng.rand(3).zero? }
    end
    data['alpha::list'] = ['from-global']
    data['global::only'] = "global #{file} for %{trusted.certname}"
    data
  end
  write_yaml("#{globals}/v5/data/os/Debian.yaml", global_data.call('Debian'))
  common = global_data.call('common')
  common['lookup_options'] = { 'alpha::settings' => { 'merge' => 'deep' }, '^production::uniq_' => { 'merge' => 'first' } }
  write_yaml("#{globals}/v5/data/common.yaml", common)
  File.write("#{globals}/v3/hiera.yaml", <<~YAML)
    ---
    :backends:
      - yaml
      - json
    :yaml:
      :datadir: "#{File.expand_path(globals)}/v3/%{::environment}/hieradata"
    :json:
      :datadir: "#{File.expand_path(globals)}/v3/jsondata"
    :hierarchy:
      - "nodes/%{::trusted.certname}"
      - "os/%{::os.family}"
      - common
  YAML
  write_yaml("#{globals}/v3/production/hieradata/common.yaml", global_data.call('v3 common'))
  write_yaml("#{globals}/v3/production/hieradata/os/RedHat.yaml", global_data.call('v3 RedHat'))
  write_yaml("#{globals}/v3/production/hieradata/nodes/n-ubuntu22.example.com.yaml", global_data.call('v3 node'))
  write_yaml("#{globals}/v3/staging/hieradata/common.yaml", { 'global::only' => 'the staging environment' })
  FileUtils.mkdir_p("#{globals}/v3/jsondata")
  File.write("#{globals}/v3/jsondata/common.json", JSON.generate({ 'global::json' => [1, 2], 'production::shared_5' => 'json global' }))
end

FileUtils.mkdir_p("#{out}/facts")
FACTSETS.each do |name, facts|
  node = "n-#{name}.example.com"
  full = facts.merge('hostname' => "n-#{name}", 'domain' => 'example.com', 'fqdn' => node, 'clientcert' => node)
  File.write("#{out}/facts/#{node}.json", JSON.pretty_generate(full))
end
