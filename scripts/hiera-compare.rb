# Compares `pbc lookup` with Puppet 7's lookup on every environment under WORK/envs (except
# `facts`), for every factset of WORK/envs/facts, for every key of the environment's data files
# (and its modules'), with no `--merge` and, on the generated environments, with each
# strategy. Puppet's answers come from hiera-oracle.rb (one process per environment, factset
# and strategy; as many at once as there are cores). An answer agrees when both give the same
# JSON (hash order included), or both find nothing, or both fail. Differences listed in the
# divergence file (tab-separated: environment, factset, merge, key, reason; `*` matches
# anything) are allowed and counted; any other fails the run. The environment `production` is
# compared again with each global configuration under WORK/globals (`--hiera-config`; merge
# column `global:NAME`).
# With --each-key, pbc is also asked every key alone, one process per key, and each of those
# answers is compared with Puppet's as well: asked all at once (with a key that is found
# nowhere), pbc answers from its whole index; asked one key, from the part of the index that
# key's lookups read, which this holds to Puppet too.
# Usage: ruby hiera-compare.rb [--each-key] PBC WORK DIVERGENCES
require 'json'
require 'yaml'
require 'open3'
require 'etc'

each_key = !ARGV.delete('--each-key').nil?
pbc, work, divergences_file = ARGV
abort('usage: hiera-compare.rb [--each-key] PBC WORK DIVERGENCES') unless divergences_file
oracle = File.join(__dir__, 'hiera-oracle.rb')
envs_dir = File.join(work, 'envs')
facts_dir = File.join(envs_dir, 'facts')

allowed = File.exist?(divergences_file) ? File.readlines(divergences_file).map(&:chomp).reject { |l| l.empty? || l.start_with?('#') }.map { |l| l.split("\t") } : []
def allowed?(allowed, fields)
  allowed.find { |a| a[0, 4].zip(fields).all? { |pat, v| pat == '*' || pat == v } }
end

def data_keys(env)
  keys = []
  Dir.glob("#{env}/**/*.{yaml,json,eyaml}").sort.each do |f|
    next if File.basename(f) == 'hiera.yaml' || f.include?('/facts/')
    doc = f.end_with?('.json') ? JSON.parse(File.read(f)) : YAML.safe_load(File.read(f), aliases: true)
    keys.concat(doc.keys.map(&:to_s)) if doc.is_a?(Hash)
  rescue StandardError
    next
  end
  (keys.uniq - ['lookup_options']).sort + ['no::such::key']
end

# One run per environment, factset and strategy: Puppet's answers (a Ruby process that loads
# Puppet, about two seconds) and pbc's. The runs are independent, so they go as many at once as
# the machine has cores (COMPARE_JOBS overrides); their results are taken in the order listed,
# so what is printed does not depend on which finished first.
runs = []
Dir.children(envs_dir).sort.each do |env|
  next if env == 'facts'

  env_dir = File.join(envs_dir, env)
  keys = data_keys(env_dir)
  # Real data (Debian's modules, public control repositories): as Puppet looks it up; the
  # generated environments with each strategy too.
  strategies = env.start_with?('deb_', 'rw_') ? [[nil, nil]] : [nil, 'deep', 'unique', 'hash'].map { |m| [m, nil] }
  if env == 'production'
    Dir.glob(File.join(work, 'globals', '*', 'hiera.yaml')).sort.each { |g| strategies << [nil, g] }
    keys += %w[global::only global::json]
  end
  Dir.children(facts_dir).sort.each do |facts_file|
    strategies.each do |merge, global|
      runs << { env: env, env_dir: env_dir, keys: keys, node: File.basename(facts_file, '.json'),
                facts: File.join(facts_dir, facts_file), merge: merge, global: global }
    end
  end
end

# pbc's JSON answers to `keys` in one process, or a string saying why there are none.
def pbc_answers(pbc, run, keys, merge_args, pbc_global)
  pout, = Open3.capture3(pbc, 'lookup', '-C', run[:env_dir], '--facts', run[:facts], '--node', run[:node],
                         '--format', 'json', '--quiet', *merge_args, *pbc_global, *keys)
  JSON.parse(pout)
rescue StandardError
  "pbc printed no JSON: #{pout.to_s[0, 200]}"
end

# Both sides' answers for one run ({label:, theirs: Puppet's by key, ours: pbc's JSON, and
# alone: pbc's JSON for each key asked alone, with --each-key}), or {failure:} saying why
# there are none.
def answers(run, oracle, envs_dir, pbc, each_key)
  merge_args = run[:merge] ? ['--merge', run[:merge]] : []
  puppet_global = run[:global] ? ['--hiera_config', run[:global]] : []
  pbc_global = run[:global] ? ['--hiera-config', run[:global]] : []
  label = run[:global] ? "global:#{File.basename(File.dirname(run[:global]))}" : run[:merge]
  where = "#{run[:env]} #{run[:node]} #{label}"
  out, err, = Open3.capture3('ruby', oracle, '--environmentpath', envs_dir, '--environment', run[:env],
                             '--node', run[:node], '--facts', run[:facts], *merge_args, *puppet_global,
                             *run[:keys])
  theirs = {}
  out.each_line do |l|
    next unless l.start_with?('{')

    j = JSON.parse(l)
    theirs[j['key']] = j
  end
  if theirs.size != run[:keys].size
    return { failure: "#{where}: Puppet answered #{theirs.size} of #{run[:keys].size} keys: #{err.lines.last(3).join.strip}" }
  end

  ours = pbc_answers(pbc, run, run[:keys], merge_args, pbc_global)
  return { failure: "#{where}: #{ours}" } if ours.is_a?(String)

  alone = {}
  if each_key
    run[:keys].each do |key|
      one = pbc_answers(pbc, run, [key], merge_args, pbc_global)
      return { failure: "#{where} #{key} alone: #{one}" } if one.is_a?(String)

      alone[key] = one
    end
  end
  { label: label, theirs: theirs, ours: ours, alone: alone }
end

jobs = Integer(ENV.fetch('COMPARE_JOBS', nil) || Etc.nprocessors)
results = Array.new(runs.size)
# The first run is made alone: Puppet makes its own directories the first time it runs on a
# machine (its run directory, /run/puppet, which a container's boot does not make), and two
# first runs at once race to make them; the loser fails ("File exists @ dir_s_mkdir").
results[0] = answers(runs[0], oracle, envs_dir, pbc, each_key) unless runs.empty?
queue = Queue.new
(1...runs.size).each { |i| queue << i }
queue.close
Array.new([jobs, 1].max) do
  Thread.new do
    while (i = queue.pop)
      results[i] = answers(runs[i], oracle, envs_dir, pbc, each_key)
    end
  end
end.each(&:join)

# What pbc's JSON `ours` says of `key`: a value, not found or an error.
def pbc_says(ours, key)
  errors = ours['errors'] || {}
  if ours.key?(key) && key != 'errors' then ['value', JSON.generate(ours[key])]
  elsif errors[key].to_s.start_with?('KEY_NOT_FOUND') then ['not found', nil]
  else ['error', errors[key].to_s]
  end
end

total = 0
agreed = 0
kinds = Hash.new(0)
listed = 0
alone_total = 0
alone_agreed = 0
failures = []
runs.zip(results).each do |run, result|
  if result[:failure]
    failures << result[:failure]
    next
  end
  theirs = result[:theirs]
  merge = result[:label]
  run[:keys].each do |key|
    t = theirs[key]
    puppet_says = if t.key?('value') then ['value', JSON.generate(t['value'])]
                  elsif t['error'].include?('did not find a value') then ['not found', nil]
                  else ['error', t['error']]
                  end
    asked = [['', result[:ours]]]
    asked << [' (asked alone)', result[:alone][key]] if result[:alone].key?(key)
    asked.each do |how, ours|
      says = pbc_says(ours, key)
      if how.empty?
        total += 1
      else
        alone_total += 1
      end
      same = puppet_says[0] == says[0] && (puppet_says[0] != 'value' || puppet_says[1] == says[1])
      if same
        if how.empty?
          agreed += 1
          kinds[puppet_says[0]] += 1
        else
          alone_agreed += 1
        end
      elsif allowed?(allowed, [run[:env], run[:node], merge || '-', key])
        listed += 1
      else
        failures << "#{run[:env]} #{run[:node]} #{merge || '-'} #{key}#{how}: Puppet #{puppet_says.compact.join(' ')} | pbc #{says.compact.join(' ')}"
      end
    end
  end
end

puts format('hiera conformance: %d of %d answers agree (%.2f%%), %d listed differences, %d unlisted',
            agreed, total, total.zero? ? 0 : 100.0 * agreed / total, listed, failures.size)
puts "  agreeing: #{kinds.sort.map { |k, n| "#{n} #{k}" }.join(', ')}"
puts format('  asked alone: %d of %d answers agree', alone_agreed, alone_total) if each_key
failures.first(40).each { |f| puts "  #{f}" }
exit(failures.empty? ? 0 : 1)
