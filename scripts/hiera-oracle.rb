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
        begin
          puts JSON.generate(line)
        rescue StandardError => e
          puts JSON.generate({ 'key' => key, 'error' => "not JSON: #{e.message}" })
        end
        $stdout.flush
      end
    end
    exit(0)
  end
end

require 'puppet/util/command_line'
Puppet::Util::CommandLine.new('puppet', ['lookup', *ARGV]).execute
