# Puppet through pbc's Hiera backend against pbc itself: for each tree given, the model `pbc
# compile --cache` writes is installed in an environment whose hiera.yaml has one level,
# `lookup_key: pbc::lookup_key` (the module in src/puppet/pbc), and for every factset of the tree,
# every key pbc answers (and one nothing binds) is looked up by Puppet 7's own lookup
# (scripts/hiera-oracle.rb, values as Puppet's rich data, so that types show). Each answer
# must be pbc's: the same value of the same types in the same order, an error where pbc's
# answer is an error (naming its code), not found where pbc has nothing.
# Usage: ruby puppet-bridge.rb PBC WORKDIR TREE...
require 'json'
require 'fileutils'
require 'open3'
require 'yaml'

pbc, work, *trees = ARGV
here = File.expand_path('..', __dir__)
compared = 0
failures = []

def run!(*argv)
  out, err, status = Open3.capture3(*argv)
  [out, err, status]
end

trees.each do |tree|
  name = File.basename(tree)
  envs = File.join(work, name, 'environments')
  FileUtils.rm_rf(File.join(work, name))
  model = File.join(work, name, 'model.pbcm')
  FileUtils.mkdir_p(File.dirname(model))
  _, err, status = run!(pbc, 'compile', '--cache', '--quiet', '-o', model, tree)
  abort "#{name}: pbc compile failed: #{err}" unless status.success?
  Dir[File.join(tree, 'facts', '*.{json,yaml,yml}')].sort.each do |facts_file|
    facts = facts_file.end_with?('.json') ? JSON.parse(File.read(facts_file)) : YAML.safe_load(File.read(facts_file))
    # `puppet facts` wraps them: {"name": NODE, "values": {...}}.
    facts = facts['values'] if facts.key?('name') && facts['values'].is_a?(Hash)
    node = facts['fqdn'] || facts['clientcert'] || File.basename(facts_file, '.*')
    # `puppet lookup --facts` wants all four, and pbc reads the same file.
    facts['fqdn'] ||= node
    facts['clientcert'] ||= node
    facts['hostname'] ||= node.split('.').first
    facts['domain'] ||= node.split('.', 2)[1] || 'example.com'
    given = File.join(work, name, "#{File.basename(facts_file, '.*')}.json")
    File.write(given, JSON.generate(facts))
    out, err, = run!(pbc, 'lookup', '--model', model, '--facts', given, '--all', '--format', 'answers', '--color', 'never')
    answers = JSON.parse(out) rescue abort("#{name}: pbc did not answer: #{err}")
    environment = answers['environment']
    env_dir = File.join(envs, environment)
    unless File.directory?(env_dir)
      FileUtils.mkdir_p(File.join(env_dir, 'data', 'pbc'))
      FileUtils.mkdir_p(File.join(env_dir, 'modules'))
      FileUtils.cp_r(File.join(here, 'src', 'puppet', 'pbc'), File.join(env_dir, 'modules', 'pbc'))
      FileUtils.cp(model, File.join(env_dir, 'data', 'pbc', 'model.pbcm'))
      File.write(File.join(env_dir, 'hiera.yaml'), <<~YAML)
        version: 5
        hierarchy:
          - name: "Bindings (pbc)"
            lookup_key: pbc::lookup_key
            options: { model: data/pbc/model.pbcm, pbc: "#{pbc}" }
      YAML
    end
    keys = answers['keys'].keys.reject { |k| k.start_with?('/') }
    absent = 'pbc_bridge::nothing_binds_this'
    oracle, oerr, = Open3.capture3({ 'PBC_ORACLE_RICH' => '1' }, 'ruby', File.join(here, 'scripts', 'hiera-oracle.rb'),
                                   '--environmentpath', envs, '--environment', environment, '--node', node,
                                   '--facts', given, *keys, absent)
    puppet = {}
    oracle.each_line do |line|
      next unless line.start_with?('{')
      entry = JSON.parse(line)
      puppet[entry['key']] = entry
    end
    (keys + [absent]).each do |key|
      compared += 1
      mine = answers['keys'][key]
      theirs = puppet[key]
      problem =
        if theirs.nil?
          "Puppet gave no answer (#{oerr.lines.last&.strip})"
        elsif mine.nil? || (mine['found'] == false && mine['error'].nil?)
          "pbc finds nothing, Puppet: #{theirs.to_json}" unless theirs['error']&.include?('did not find a value')
        elsif mine['error']
          "pbc fails with #{mine['error']['code']}, Puppet: #{theirs.to_json}" unless theirs['error']&.include?(mine['error']['code'])
        elsif theirs.key?('error')
          "pbc answers #{mine['value'].to_json}, Puppet fails: #{theirs['error']}"
        elsif JSON.generate(theirs['value']) != JSON.generate(mine['value'])
          "pbc answers #{JSON.generate(mine['value'])}, Puppet #{JSON.generate(theirs['value'])}"
        end
      failures << "#{name} #{node} #{key}: #{problem}" if problem
    end
  end
end

# A catalog: `puppet apply` of a class whose parameters nothing but bindings supply (the
# quick start's `ntp`, bound by the site for the datacenter `ams` and by the module for the
# rest), with the facts Facter gives this machine and `datacenter` set: the resource shows the
# bound values.
quickstart = trees.find { |t| File.basename(t) == 'quickstart' }
if quickstart
  envs = File.join(work, 'quickstart', 'environments')
  manifest = File.join(envs, 'production', 'manifests')
  FileUtils.mkdir_p(manifest)
  File.write(File.join(manifest, 'site.pp'), <<~PP)
    class ntp(Array[String] $servers, Boolean $iburst) {
      notify { 'ntp': message => "servers=${servers} iburst=${iburst}" }
    }
    include ntp
  PP
  [['ams', '[ntp1.ams.example.com, ntp2.ams.example.com]'], ['fra', '[0.pool.ntp.org, 1.pool.ntp.org]']].each do |dc, servers|
    out, err, = Open3.capture3({ 'FACTER_datacenter' => dc }, 'puppet', 'apply', '--environmentpath', envs,
                               '--environment', 'production', '--noop', '--color', 'false',
                               File.join(manifest, 'site.pp'))
    line = (out + err).lines.find { |l| l.include?('servers=') }
    compared += 1
    expected = "servers=#{servers} iburst=true"
    if line&.include?(expected)
      puts "catalog (datacenter #{dc}): #{line.strip}"
    else
      failures << "puppet apply (datacenter #{dc}): no `#{expected}` in its output:\n#{out}#{err}"
    end
  end
end

# `puppet lookup --explain` shows the binding that won, its layer and the `when` it matched.
if quickstart
  out, err, = Open3.capture3('puppet', 'lookup', '--environmentpath', File.join(work, 'quickstart', 'environments'),
                             '--environment', 'production', '--node', 'web01.ams.example.com',
                             '--facts', File.join(work, 'quickstart', 'web01.json'), '--explain', 'ntp::servers')
  expected = "pbc: 'ntp::servers' from the binding at bindings/default.pp:5:5 in layer 'site' (when datacenter 'ams')"
  compared += 1
  if out.include?(expected)
    puts "explain: #{expected}"
  else
    failures << "puppet lookup --explain: no `#{expected}` in its output:\n#{out}#{err}"
  end
end

# What cannot be answered is a Puppet error naming why, never an answer: each case is an
# environment whose pbc level is broken one way, and the lookup of a key the model binds.
if quickstart
  model = File.join(work, 'quickstart', 'model.pbcm')
  damaged = File.join(work, 'quickstart', 'damaged.pbcm')
  File.binwrite(damaged, File.binread(model).tap { |b| b.setbyte(b.size / 2, b.getbyte(b.size / 2) ^ 0xff) })
  cases = [
    ['missing', { 'model' => 'data/pbc/absent.pbcm' }, 'does not exist'],
    ['path', { 'path' => 'pbc/model.pbcm' }, 'not `path`'],
    ['not_installed', { 'pbc' => File.join(work, 'no-such-pbc') }, 'cannot run pbc'],
    ['damaged', { 'model' => 'data/pbc/damaged.pbcm' }, 'INVALID_MODEL'],
    ['staging', {}, 'MODEL_ENVIRONMENT_MISMATCH'],
    ['slow', { 'timeout' => 0.000001 }, 'did not answer within'],
  ]
  FileUtils.rm_rf(File.join(work, 'failures'))
  cases.each do |environment, options, expected|
    env_dir = File.join(work, 'failures', environment)
    FileUtils.mkdir_p(File.join(env_dir, 'data', 'pbc'))
    FileUtils.mkdir_p(File.join(env_dir, 'modules'))
    FileUtils.cp_r(File.join(here, 'src', 'puppet', 'pbc'), File.join(env_dir, 'modules', 'pbc'))
    FileUtils.cp(model, File.join(env_dir, 'data', 'pbc', 'model.pbcm'))
    FileUtils.cp(damaged, File.join(env_dir, 'data', 'pbc', 'damaged.pbcm'))
    level = { 'name' => 'Bindings (pbc)', 'lookup_key' => 'pbc::lookup_key',
              'options' => { 'model' => options.fetch('model', 'data/pbc/model.pbcm'),
                             'pbc' => options.fetch('pbc', pbc) }.merge(options.slice('timeout')) }
    level.merge!(options.slice('path'))
    File.write(File.join(env_dir, 'hiera.yaml'), { 'version' => 5, 'hierarchy' => [level] }.to_yaml)
    facts = File.join(work, 'quickstart', 'web01.json')
    oracle, oerr, = Open3.capture3('ruby', File.join(here, 'scripts', 'hiera-oracle.rb'),
                                   '--environmentpath', File.join(work, 'failures'), '--environment', environment,
                                   '--node', 'web01.ams.example.com', '--facts', facts, 'ntp::servers')
    line = oracle.lines.find { |l| l.start_with?('{') }
    answer = line ? JSON.parse(line) : {}
    compared += 1
    if answer['error']&.include?(expected)
      puts "failure (#{environment}): #{answer['error'].lines.first.strip}"
    else
      failures << "failure case #{environment}: expected an error with `#{expected}`, got #{line || oerr}"
    end
  end
end

failures.each { |f| puts "  differs: #{f}" }
puts "puppet bridge: #{compared - failures.size} of #{compared} answers through pbc::lookup_key agree with pbc lookup"
exit(failures.empty? ? 0 : 1)
