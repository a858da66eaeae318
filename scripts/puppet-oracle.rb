# scripts/puppet-oracle.rb ROOT LIST OUT.tsv PN_DIR
#
# Puppet 7's judgement of every file named in LIST (paths relative to ROOT), in one Ruby process:
# the verdict of `puppet parser validate` (parse plus Checker4_0 validation) with the line and
# message of the first error, and for accepted files the PN JSON that `puppet parser dump
# --format json` prints, written to PN_DIR/<path>.json. Output: path<TAB>ok|error<TAB>line<TAB>message.
# Puppet's own crashes (its PN dumper fails on splat parameters) leave no PN file.
require 'puppet'
require 'json'

root, list, out_tsv, pn_dir = ARGV
abort 'usage: puppet-oracle.rb ROOT LIST OUT.tsv PN_DIR' unless pn_dir
tmp = ENV['TMPDIR'] || '/var/tmp'
Puppet.initialize_settings(['--confdir', "#{tmp}/pbc-oracle/conf", '--vardir', "#{tmp}/pbc-oracle/var",
                            '--codedir', "#{tmp}/pbc-oracle/code", '--color', 'false'])
Puppet::Util::Log.close_all
require 'puppet/pops/pn'

parser = Puppet::Pops::Parser::EvaluatingParser.new
File.open(out_tsv, 'w') do |out|
  File.foreach(list, chomp: true) do |rel|
    src = File.read(File.join(root, rel), mode: 'rb').force_encoding('UTF-8')
    verdict, line, message = 'ok', '', ''
    begin
      parser.parse_string(src, rel)
    rescue StandardError, SyntaxError => e
      verdict = 'error'
      line = e.respond_to?(:line) && e.line ? e.line.to_s : (e.message[/line: (\d+)/, 1] || '')
      message = e.message.gsub(/[\t\n]/, ' ')[0, 300]
    end
    if verdict == 'ok'
      begin
        model = parser.parser.parse_string(src)
        pn = Puppet::Pops::Model::PNTransformer.transform(model)
        dst = File.join(pn_dir, "#{rel}.json")
        FileUtils.mkdir_p(File.dirname(dst))
        File.write(dst, JSON.dump(pn.to_data) + "\n")
      rescue StandardError => e
        # Puppet's dumper crashed on a file it accepts: no reference PN.
      end
    end
    out.puts [rel, verdict, line, message].join("\t")
  end
end
