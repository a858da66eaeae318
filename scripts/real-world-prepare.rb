# Lays out the real-world conformance suite under WORK/envs (scripts/real-world-conformance.sh):
# one environment per public control repository of SHARED/data/control-repos (data nobody on
# the team wrote, read from there and copied only into WORK), and factsets from Debian's
# facterdb (real Facter 4 output) with the site variables each repository's SOURCE names.
#
# The hierarchy is what Puppet can answer on a machine without the repositories' secrets and
# services, given to Puppet and to pbc alike: levels whose function neither can run here (a
# Vault backend, a Terraform function; eyaml levels stay, though none of their files is
# published, and Puppet reads them with Debian's hiera-eyaml) and levels
# reading data outside the repository (private data under /etc) are left out of WORK's copy
# of hiera.yaml; a data directory that is the environment's own under an absolute path
# (`/etc/puppetlabs/code/environments/%{environment}/hieradata`) becomes relative. Data files
# are copied unmodified.
# Usage: ruby real-world-prepare.rb SHARED_CONTROL_REPOS WORK
require 'yaml'
require 'json'
require 'fileutils'

repos, work = ARGV
abort 'usage: ruby real-world-prepare.rb SHARED_CONTROL_REPOS WORK' unless work
envs = File.join(work, 'envs')
FileUtils.rm_rf(envs)
FileUtils.rm_rf(File.join(work, 'original'))
FileUtils.mkdir_p(File.join(envs, 'facts'))

PLAIN = %w[yaml_data json_data].freeze
FUNCTIONS = %w[data_hash lookup_key data_dig hiera3_backend v4_data_hash].freeze
OWN_DATADIR = %r{\A/etc/puppetlabs/code/environments/%\{:{0,2}environment\}/(.+)\z}.freeze

left_out = []
Dir.children(repos).sort.each do |name|
  src = File.join(repos, name)
  next unless File.file?(File.join(src, 'hiera.yaml'))

  env_name = "rw_#{name.downcase.gsub(/[^a-z0-9_]/, '_')}"
  env = File.join(envs, env_name)
  FileUtils.mkdir_p(env)
  config = YAML.safe_load(File.read(File.join(src, 'hiera.yaml')), aliases: true)
  defaults = config['defaults'] || {}
  default_function = FUNCTIONS.map { |f| defaults[f] && [f, defaults[f]] }.compact.first || %w[data_hash yaml_data]
  dropped_names = []
  dropped_datadirs = []
  config['hierarchy'] = (config['hierarchy'] || []).select do |level|
    function = FUNCTIONS.map { |f| level[f] && [f, level[f]] }.compact.first || default_function
    datadir = level['datadir'] || defaults['datadir'] || 'data'
    if (m = OWN_DATADIR.match(datadir))
      dropped_datadirs << datadir
      level['datadir'] = m[1]
      datadir = m[1]
    end
    readable = (function[0] == 'data_hash' && PLAIN.include?(function[1])) ||
               function == %w[lookup_key eyaml_lookup_key]
    keep = readable && !level.key?('uri') && !level.key?('uris') && !datadir.start_with?('/')
    unless keep
      left_out << "#{env_name}: #{level['name']} (#{function.join(': ')}, datadir #{datadir})"
      dropped_names << level['name']
    end
    dropped_datadirs << datadir if datadir.start_with?('/')
    keep
  end
  File.write(File.join(env, 'hiera.yaml'), YAML.dump(config))
  Dir.children(src).each do |entry|
    path = File.join(src, entry)
    FileUtils.cp_r(path, env) if File.directory?(path)
  end
  # The repository as written (its own hiera.yaml) beside it, where only levels pbc cannot
  # search were left out: pbc must answer it, told `--empty-level` for each of them, exactly
  # as it answers the copy Puppet answered.
  next unless dropped_datadirs.empty?

  original = File.join(work, 'original', env_name)
  FileUtils.rm_rf(original)
  FileUtils.mkdir_p(original)
  FileUtils.cp(File.join(src, 'hiera.yaml'), original)
  Dir.children(src).each do |entry|
    path = File.join(src, entry)
    FileUtils.cp_r(path, original) if File.directory?(path)
  end
  File.write(File.join(original, 'empty-levels'), dropped_names.map { |n| "#{n}\n" }.join)
end

# hiera-eyaml: a keypair and values made now with Debian's hiera-eyaml (`eyaml createkeys`,
# `eyaml encrypt`), in a level above plain YAML, twice: `rw_eyaml_generated`'s level names a
# private key that is not there (plain values of the .eyaml file answer, encrypted ones fail in
# both, and never fall through to the level below); `rw_eyaml_keyed`'s names the key, which
# Puppet and pbc both read from the level's options and decrypt (values interpolated after
# decryption, several blocks in one string, multi-line and non-ASCII plaintexts, the last line
# break chomped).
keys = File.join(work, 'eyaml-keys')
FileUtils.rm_rf(keys)
FileUtils.mkdir_p(keys)
system('eyaml', 'createkeys', '--pkcs7-private-key', File.join(keys, 'private.pem'),
       '--pkcs7-public-key', File.join(keys, 'public.pem'), out: File::NULL, err: File::NULL) ||
  abort('eyaml createkeys failed (apt-get install hiera-eyaml)')
encrypt = lambda do |text, form|
  out = IO.popen(['eyaml', 'encrypt', '-s', text, '-o', form, '--pkcs7-public-key', File.join(keys, 'public.pem')],
                 err: File::NULL, &:read)
  abort "eyaml encrypt failed: #{out}" unless out.include?('ENC[PKCS7,')
  out.strip
end
block = ->(text) { encrypt.call(text, 'block').lines.map { |l| "  #{l.strip}" }.join("\n") }
{ 'rw_eyaml_generated' => 'absent-private.pem', 'rw_eyaml_keyed' => 'private.pem' }.each do |env_name, key|
  env = File.join(envs, env_name)
  FileUtils.mkdir_p(File.join(env, 'data'))
  File.write(File.join(env, 'hiera.yaml'), YAML.dump(
    'version' => 5,
    'defaults' => { 'datadir' => 'data' },
    'hierarchy' => [
      { 'name' => 'Secrets', 'lookup_key' => 'eyaml_lookup_key', 'path' => 'secrets.eyaml',
        'options' => { 'pkcs7_private_key' => File.join(keys, key),
                       'pkcs7_public_key' => File.join(keys, 'public.pem') } },
      { 'name' => 'Common', 'data_hash' => 'yaml_data', 'path' => 'common.yaml' }
    ]
  ))
  File.write(File.join(env, 'data', 'secrets.eyaml'), <<~EYAML)
    ---
    eyaml::password: #{encrypt.call('s3cret', 'string')}
    eyaml::token: >
    #{block.call('block secret')}
    eyaml::users:
      - admin
      - #{encrypt.call('hidden', 'string')}
    eyaml::host: db.example.com
    eyaml::greeting: "hello %{facts.os.family}"
    eyaml::interpolated: #{encrypt.call('on %{facts.os.family} as %{trusted.certname}', 'string')}
    eyaml::dsn: "postgres://app:#{encrypt.call('pa:ss', 'string')}@db/#{encrypt.call("appdb\n", 'string')}"
    eyaml::lines: #{encrypt.call("line one\nline two\n\n", 'string')}
    eyaml::unicode: #{encrypt.call('pässwörd ✓ 秘密', 'string')}
    eyaml::long: >
    #{block.call('x' * 3000)}
    eyaml::settings:
      user: app
      password: #{encrypt.call('hunter2', 'string')}
      "%{facts.os.family}": #{encrypt.call('keyed by family', 'string')}
  EYAML
  File.write(File.join(env, 'data', 'common.yaml'),
             "eyaml::password: not-this-one\neyaml::host: fallback.example.com\neyaml::port: 5432\n")
end

# Facter 4 output of real machines, with the variables each repository's hierarchy needs but
# Facter does not give (its own facts or site.pp's top-scope variables, per SOURCE).
facterdb = Dir.glob('/usr/share/rubygems-integration/all/gems/facterdb-*/facts').max
abort 'facterdb is not installed (apt-get install facterdb)' unless facterdb
site_variables = {
  'site' => 'cp', 'cluster' => 'auxtel-ccs', 'role' => 'ccs-hcu', 'variant' => '1114',
  'subvariant' => 'plain', 'prefix' => 'login', 'software_stack' => 'computecanada',
  'cloud' => { 'provider' => 'openstack', 'region' => 'arbutus.cloud.computecanada.ca' },
  'deployment' => 'production', 'subnet' => 'sesi_rocquencourt', 'hostgroup' => 'default',
  'simp_scenario' => 'simp', 'swh_hostname' => { 'short' => 'node', 'internal_fqdn' => 'node.internal.example.org' }
}
# Node names: machines of facterdb, and names the repositories' own node data is kept under.
nodes = {
  'redhat-9' => '4.2/redhat-9-x86_64.facts',
  'debian-11' => '4.2/debian-11-x86_64.facts',
  'ubuntu-20.04' => '4.2/ubuntu-20.04-x86_64.facts',
  'centos-7' => '4.2/centos-7-x86_64.facts',
  'pihole' => '4.2/debian-11-x86_64.facts',
  'banco.softwareheritage.org' => '4.2/debian-11-x86_64.facts',
  'puppet.your.domain' => '4.2/centos-7-x86_64.facts'
}
nodes.each do |node, file|
  facts = JSON.parse(File.read(File.join(facterdb, file)))
  facts.merge!(site_variables)
  # Puppet wants the node's names consistent when a facts file gives them.
  hostname, domain = node.include?('.') ? node.split('.', 2) : [node, 'example.com']
  fqdn = "#{hostname}.#{domain}"
  facts.merge!('clientcert' => node, 'fqdn' => fqdn, 'hostname' => hostname, 'domain' => domain)
  facts['networking'] = (facts['networking'] || {}).merge('fqdn' => fqdn, 'hostname' => hostname, 'domain' => domain)
  File.write(File.join(envs, 'facts', "#{node}.json"), JSON.pretty_generate(facts))
end
puts "real-world suite: #{Dir.children(envs).size - 1} environments, #{nodes.size} factsets from #{facterdb}"
left_out.each { |l| puts "  left out of both: #{l}" }
