# Puppet through pbc's Hiera backend against pbc itself: for each tree given, the model `pbc
# compile --cache` writes is installed in an environment whose hiera.yaml has one level,
# `lookup_key: pbc::lookup_key` (the module in src/puppet/pbc), and for every factset of the tree,
# every key pbc answers (and one nothing binds) is looked up by Puppet 7's own lookup
# (scripts/hiera-oracle.rb, values as Puppet's rich data, so that types show). Each answer
# must be pbc's: the same value of the same types in the same order, an error where pbc's
# answer is an error (naming its code), not found where pbc has nothing. Every tree is compared
# twice: with the module running pbc once per compile, and with it asking a `pbc serve` this
# script starts (`options: { socket: ... }`); each time both in Ruby (puppet-agent's) and in
# the JRuby of Puppet's server (`puppetserver ruby`).
# Usage: ruby puppet-bridge.rb PBC WORKDIR TREE...
require 'json'
require 'fileutils'
require 'open3'
require 'yaml'
require 'socket'

pbc, work, *trees = ARGV
here = File.expand_path('..', __dir__)
compared = 0
failures = []

def run!(*argv)
  out, err, status = Open3.capture3(*argv)
  [out, err, status]
end

# Puppet's lookups of `jobs` (each a compile: environment path, environment, node, facts,
# keys) in one process of `ruby`, as a server compiles many catalogs in one JRuby (starting
# puppetserver's JRuby takes longer than all of its lookups here): each job's answers by key,
# and what the process said on its standard error.
def oracle(here, work, ruby, jobs, *switches)
  return [[], ''] if jobs.empty?

  file = File.join(work, "jobs-#{Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)}.jsonl")
  File.write(file, jobs.map { |j| JSON.generate(j.slice('environmentpath', 'environment', 'node', 'facts', 'keys')) + "\n" }.join)
  first = jobs.first
  out, err, = Open3.capture3(*ruby, File.join(here, 'scripts', 'hiera-oracle.rb'), *switches, "--pbc-jobs=#{file}",
                             '--environmentpath', first['environmentpath'], '--environment', first['environment'],
                             '--node', first['node'], '--facts', first['facts'])
  answers = Array.new(jobs.size) { {} }
  out.each_line do |line|
    next unless line.start_with?('{')
    entry = JSON.parse(line)
    answers[entry['job']][entry['key']] = entry if entry['job'].is_a?(Integer) && entry['job'] < jobs.size
  end
  [answers, err]
end

# Puppet's lookup runs in the Ruby puppet-agent uses, and in the JRuby a Puppet server compiles
# in (`puppetserver ruby`: Debian's puppetserver, its JRuby and its gems).
engines = [['ruby', ['ruby']], ['puppetserver jruby', %w[puppetserver ruby]]]

# `pbc serve`, answering from the models under WORK/served, for as long as this script runs.
served = File.join(work, 'served')
socket = File.join(work, 'pbc.sock')
FileUtils.rm_rf(served)
FileUtils.mkdir_p(served)
server = Process.spawn(pbc, 'serve', '--socket', socket, '--models', served, '--idle', '2',
                       err: File.join(work, 'serve.log'))
at_exit do
  Process.kill('TERM', server)
  Process.wait(server)
end
50.times { File.socket?(socket) ? break : sleep(0.1) }
abort "pbc serve did not start: #{File.read(File.join(work, 'serve.log'))}" unless File.socket?(socket)

# The hiera.yaml level's options: the model, and pbc to run or the server to ask.
level_options = lambda do |mode|
  mode == 'serve' ? %({ model: data/pbc/model.pbcm, socket: "#{socket}" }) : %({ model: data/pbc/model.pbcm, pbc: "#{pbc}" })
end
base_of = ->(mode, name) { mode == 'serve' ? File.join(served, name) : File.join(work, name) }

# Every factset of every tree, in both modes: pbc's answers, and the compile Puppet is asked for.
jobs = []
%w[run serve].product(trees).each do |mode, tree|
  name = File.basename(tree)
  base = base_of.call(mode, name)
  envs = File.join(base, 'environments')
  FileUtils.rm_rf(base)
  model = File.join(base, 'model.pbcm')
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
    given = File.join(base, "#{File.basename(facts_file, '.*')}.json")
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
            options: #{level_options.call(mode)}
      YAML
    end
    keys = answers['keys'].keys.reject { |k| k.start_with?('/') }
    absent = 'pbc_bridge::nothing_binds_this'
    # A key the answers do not list is pbc's answer for it by name (not found, or where a
    # level pbc cannot search comes first, that level's error).
    out, err, = run!(pbc, 'lookup', '--model', model, '--facts', given, '--format', 'answers', '--color', 'never',
                     '--', absent)
    answers['keys'][absent] = (JSON.parse(out) rescue abort("#{name}: pbc did not answer #{absent}: #{err}"))['keys'][absent]
    jobs << { 'environmentpath' => envs, 'environment' => environment, 'node' => node, 'facts' => given,
              'keys' => keys + [absent], 'answers' => answers, 'label' => "#{name} (#{mode}" }
  end
end

engines.each do |engine, ruby|
  puppet, oerr = oracle(here, work, ruby, jobs, '--pbc-rich')
  jobs.each_with_index do |job, j|
    job['keys'].each do |key|
      compared += 1
      mine = job['answers']['keys'][key]
      theirs = puppet[j][key]
      problem =
        if theirs.nil?
          "Puppet gave no answer (#{oerr.lines.last&.strip})"
        elsif theirs['environment'] != job['environment']
          "Puppet looked it up in the environment #{theirs['environment']}, not #{job['environment']}"
        elsif mine.nil? || (mine['found'] == false && mine['error'].nil?)
          "pbc finds nothing, Puppet: #{theirs.to_json}" unless theirs['error']&.include?('did not find a value')
        elsif mine['error']
          "pbc fails with #{mine['error']['code']}, Puppet: #{theirs.to_json}" unless theirs['error']&.include?(mine['error']['code'])
        elsif theirs.key?('error')
          "pbc answers #{mine['value'].to_json}, Puppet fails: #{theirs['error']}"
        elsif JSON.generate(theirs['value']) != JSON.generate(mine['value'])
          "pbc answers #{JSON.generate(mine['value'])}, Puppet #{JSON.generate(theirs['value'])}"
        end
      failures << "#{job['label']}, #{engine}) #{job['node']} #{key}: #{problem}" if problem
    end
  end
end

# A catalog: `puppet apply` of a class whose parameters nothing but bindings supply (the
# quick start's `ntp`, bound by the site for the datacenter `ams` and by the module for the
# rest), with the facts Facter gives this machine and `datacenter` set: the resource shows the
# bound values.
quickstart = trees.find { |t| File.basename(t) == 'quickstart' }
(quickstart ? %w[run serve] : []).each do |mode|
  envs = File.join(base_of.call(mode, 'quickstart'), 'environments')
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
      puts "catalog (#{mode}, datacenter #{dc}): #{line.strip}"
    else
      failures << "puppet apply (#{mode}, datacenter #{dc}): no `#{expected}` in its output:\n#{out}#{err}"
    end
  end
end

# `puppet lookup --explain` shows the binding that won, its layer and the `when` it matched.
(quickstart ? %w[run serve] : []).each do |mode|
  base = base_of.call(mode, 'quickstart')
  out, err, = Open3.capture3('puppet', 'lookup', '--environmentpath', File.join(base, 'environments'),
                             '--environment', 'production', '--node', 'web01.ams.example.com',
                             '--facts', File.join(base, 'web01.json'), '--explain', 'ntp::servers')
  expected = "pbc: 'ntp::servers' from the binding at bindings/default.pp:5:5 in layer 'site' (when datacenter 'ams')"
  compared += 1
  if out.include?(expected)
    puts "explain (#{mode}): #{expected}"
  else
    failures << "puppet lookup --explain (#{mode}): no `#{expected}` in its output:\n#{out}#{err}"
  end
end

# What cannot be answered is a Puppet error naming why, never an answer: each case is an
# environment whose pbc level is broken one way, and the lookup of a key the model binds.
if quickstart
  model = File.join(work, 'quickstart', 'model.pbcm')
  damaged = File.join(work, 'quickstart', 'damaged.pbcm')
  File.binwrite(damaged, File.binread(model).tap { |b| b.setbyte(b.size / 2, b.getbyte(b.size / 2) ^ 0xff) })
  # A cache another pbc wrote: the version after the magic line is one this pbc does not read.
  other_version = File.join(work, 'quickstart', 'other-version.pbcm')
  File.binwrite(other_version, File.binread(model).tap { |b| b[16, 4] = [b[16, 4].unpack1('V') + 1].pack('V') })
  # A pbc that never answers (killed after `timeout`), and a server that accepts connections and
  # never answers.
  slow_pbc = File.join(work, 'slow-pbc')
  File.write(slow_pbc, "#!/bin/sh\nsleep 60\n")
  File.chmod(0o755, slow_pbc)
  silent_socket = File.join(work, 'silent.sock')
  FileUtils.rm_f(silent_socket)
  silent = UNIXServer.new(silent_socket)
  held = []
  Thread.new { loop { held << silent.accept } }
  cases = [
    ['missing', { 'model' => 'data/pbc/absent.pbcm' }, 'does not exist'],
    ['path', { 'path' => 'pbc/model.pbcm' }, 'not `path`'],
    ['not_installed', { 'pbc' => File.join(work, 'no-such-pbc') }, 'cannot run pbc'],
    ['damaged', { 'model' => 'data/pbc/damaged.pbcm' }, 'INVALID_MODEL'],
    ['other_version', { 'model' => 'data/pbc/other-version.pbcm' }, 'this pbc reads version'],
    ['staging', {}, 'MODEL_ENVIRONMENT_MISMATCH'],
    ['slow', { 'pbc' => slow_pbc, 'timeout' => 1 }, 'did not answer within'],
    # The same through `pbc serve`, and a server that is not running, or asked for a model
    # outside its `--models`.
    ['serve_down', { 'socket' => File.join(work, 'nobody-listens.sock') }, 'cannot reach pbc serve'],
    ['serve_outside', { 'socket' => socket }, 'SERVE_MODEL_REFUSED'],
    ['serve_damaged', { 'socket' => socket, 'model' => 'data/pbc/damaged.pbcm' }, 'INVALID_MODEL'],
    ['serve_other_version', { 'socket' => socket, 'model' => 'data/pbc/other-version.pbcm' }, 'this pbc reads version'],
    ['serve_staging', { 'socket' => socket }, 'MODEL_ENVIRONMENT_MISMATCH'],
    ['serve_slow', { 'socket' => silent_socket, 'timeout' => 1 }, 'did not answer within'],
  ]
  FileUtils.rm_rf(File.join(work, 'failures'))
  FileUtils.rm_rf(File.join(served, 'failures'))
  failure_jobs = cases.map do |environment, options, expected|
    # Under the server's `--models`, except where being outside is the case.
    root = options['socket'] == socket && environment != 'serve_outside' ? File.join(served, 'failures') : File.join(work, 'failures')
    env_dir = File.join(root, environment)
    FileUtils.mkdir_p(File.join(env_dir, 'data', 'pbc'))
    FileUtils.mkdir_p(File.join(env_dir, 'modules'))
    FileUtils.cp_r(File.join(here, 'src', 'puppet', 'pbc'), File.join(env_dir, 'modules', 'pbc'))
    FileUtils.cp(model, File.join(env_dir, 'data', 'pbc', 'model.pbcm'))
    FileUtils.cp(damaged, File.join(env_dir, 'data', 'pbc', 'damaged.pbcm'))
    FileUtils.cp(other_version, File.join(env_dir, 'data', 'pbc', 'other-version.pbcm'))
    run_or_ask = options.key?('socket') ? options.slice('socket') : { 'pbc' => options.fetch('pbc', pbc) }
    level = { 'name' => 'Bindings (pbc)', 'lookup_key' => 'pbc::lookup_key',
              'options' => { 'model' => options.fetch('model', 'data/pbc/model.pbcm') }
                .merge(run_or_ask).merge(options.slice('timeout')) }
    level.merge!(options.slice('path'))
    File.write(File.join(env_dir, 'hiera.yaml'), { 'version' => 5, 'hierarchy' => [level] }.to_yaml)
    { 'environmentpath' => root, 'environment' => environment, 'node' => 'web01.ams.example.com',
      'facts' => File.join(work, 'quickstart', 'web01.json'), 'keys' => ['ntp::servers'], 'expected' => expected }
  end
  engines.each do |engine, ruby|
    answers, oerr = oracle(here, work, ruby, failure_jobs)
    failure_jobs.each_with_index do |job, j|
      environment = job['environment']
      answer = answers[j]['ntp::servers']
      compared += 1
      if answer && answer['environment'] == environment && answer['error']&.include?(job['expected'])
        puts "failure (#{environment}, #{engine}): #{answer['error'].lines.first.strip}"
      else
        failures << "failure case #{environment} (#{engine}): expected an error with `#{job['expected']}`, got #{answer&.to_json || oerr}"
      end
    end
  end

  # A compile that evaluates longer between two keys than the server keeps a connection
  # waiting (`--idle 2`): the module opens again, and the second key is answered as the first.
  base = base_of.call('serve', 'quickstart')
  engines.each do |engine, ruby|
    oracle, oerr, = Open3.capture3(*ruby, File.join(here, 'scripts', 'hiera-oracle.rb'), '--pbc-rich', '--pbc-pause=3',
                                   '--environmentpath', File.join(base, 'environments'), '--environment', 'production',
                                   '--node', 'web01.ams.example.com', '--facts', File.join(base, 'web01.json'),
                                   'ntp::servers', 'motd::message')
    got = oracle.lines.select { |l| l.start_with?('{') }.map { |l| JSON.parse(l)['value'] }
    compared += 1
    if got == [['ntp1.ams.example.com', 'ntp2.ams.example.com'], 'Managed by Puppet on web01.ams.example.com']
      puts "serve (#{engine}): a key asked after the server closed the idle connection is answered (#{got.to_json})"
    else
      failures << "serve after an idle close (#{engine}): expected the quick start's two answers, got #{oracle}#{oerr}"
    end
  end
end

failures.each { |f| puts "  differs: #{f}" }
puts "puppet bridge: #{compared - failures.size} of #{compared} answers through pbc::lookup_key agree with pbc lookup"
exit(failures.empty? ? 0 : 1)
