# Puppet 7's own answers for many keys in one process: `puppet lookup` answers one key per
# run (about 4 s each here), so this runs its application with a `main` that loops over the
# keys in one scope and prints one JSON line per key: {"key", "value"} or {"key", "error"}.
# Usage: ruby hiera-oracle.rb --environmentpath DIR --environment E --node N --facts F
#        [--merge S [--knock-out-prefix P] [--sort-merged-arrays] [--merge-hash-arrays]] KEY...
# (the options are `puppet lookup`'s). Written for pbc's scripts/hiera-conformance.sh. With
# PBC_ORACLE_RICH=1 each value is printed as Puppet's rich data (`ToDataConverter`, so that
# Float, Sensitive and non-string keys show), for scripts/puppet-bridge.sh; with
# PBC_ORACLE_TIMES=1 each line also says how long its lookup took (`us`, microseconds); with
# PBC_ORACLE_PAUSE=SECONDS it waits that long before each key after the first (a compile that
# evaluates for a while between lookups).
# `puppetserver ruby` passes its JRuby no environment variables of the caller's: there the same
# switches are given as arguments, `--pbc-rich`, `--pbc-times` and `--pbc-pause=SECONDS`,
# before Puppet's.
# `--pbc-jobs=FILE` runs many lookups in this one process, as a Puppet server compiles many
# catalogs in one JRuby: FILE holds a JSON object a line, {"environmentpath", "environment",
# "node", "facts", "keys"}, and each is a compile of its own (its node, its facts, its
# environment, read from its environment path), whose lines say "job" (the line's index in
# FILE) and "environment" (the one the compile was in). Puppet's own options (the first job's
# environment path, environment, node and facts) are still given, to start the application.
require 'puppet'
require 'puppet/application/lookup'
require 'json'

ORACLE = {
  rich: ENV['PBC_ORACLE_RICH'] == '1',
  times: ENV['PBC_ORACLE_TIMES'] == '1',
  pause: ENV['PBC_ORACLE_PAUSE']&.to_f,
}
ARGV.reject! do |arg|
  case arg
  when '--pbc-rich' then ORACLE[:rich] = true
  when '--pbc-times' then ORACLE[:times] = true
  when /\A--pbc-pause=(.+)\z/ then ORACLE[:pause] = Regexp.last_match(1).to_f
  when /\A--pbc-jobs=(.+)\z/ then ORACLE[:jobs] = File.readlines(Regexp.last_match(1)).map { |l| JSON.parse(l) }
  end
end

class Puppet::Application::Lookup
  def main
    keys = command_line.args
    merge = options[:merge]
    merge_options =
      if merge.nil?
        nil
      elsif merge == 'deep'
        m = { 'strategy' => 'deep',
              'sort_merged_arrays' => !options[:sort_merged_arrays].nil?,
              'merge_hash_arrays' => !options[:merge_hash_arrays].nil? }
        m['knockout_prefix'] = options[:prefix] if options[:prefix]
        m
      else
        { 'strategy' => merge }
      end
    jobs = ORACLE[:jobs]
    if jobs.nil?
      lookup_all(keys, merge_options, nil)
    else
      jobs.each_with_index do |job, j|
        options[:node] = job['node']
        options[:fact_file] = job['facts']
        Puppet[:environmentpath] = job['environmentpath']
        Puppet[:environment] = job['environment']
        begin
          Puppet.override(environments: Puppet::Environments::Directories.new(job['environmentpath'], [])) do
            lookup_all(job['keys'], merge_options, j)
          end
        rescue StandardError => e
          # A compile that fails answers none of its keys (as a run of its own would not), and
          # the jobs after it are still run.
          warn "job #{j}: #{e.message}"
        end
      end
    end
    exit(0)
  end

  # One compile's scope, and each key looked up in it: a JSON line each (with `job`, its
  # index, when there are jobs).
  def lookup_all(keys, merge_options, job)
    generate_scope do |scope|
      keys.each_with_index do |key, i|
        sleep(ORACLE[:pause]) if i.positive? && ORACLE[:pause]
        invocation = Puppet::Pops::Lookup::Invocation.new(scope, {}, {}, nil)
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        line =
          begin
            value = Puppet::Pops::Lookup.lookup(key, nil, nil, false, merge_options, invocation)
            if ORACLE[:rich]
              value = Puppet::Pops::Serialization::ToDataConverter.convert(value, rich_data: true)
            end
            { 'key' => key, 'value' => value }
          rescue Puppet::DataBinding::LookupError, Puppet::Error => e
            { 'key' => key, 'error' => e.message }
          end
        if ORACLE[:times]
          line['us'] = ((Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1e6).round
        end
        line.merge!('job' => job, 'environment' => scope.environment.name.to_s) if job
        begin
          puts JSON.generate(line)
        rescue StandardError => e
          puts JSON.generate({ 'key' => key, 'error' => "not JSON: #{e.message}" }.merge(line.slice('job', 'environment')))
        end
        $stdout.flush
      end
    end
  end
end

require 'puppet/util/command_line'
Puppet::Util::CommandLine.new('puppet', ['lookup', *ARGV]).execute
