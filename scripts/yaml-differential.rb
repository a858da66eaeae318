# pbc's reading of YAML data files against Psych's, called as Puppet 7 calls it
# (Puppet::Util::Yaml.safe_load_file: YAML.safe_load with Symbol permitted and aliases allowed).
# Usage: ruby yaml-differential.rb PBC WORKDIR FILE...
# Each file is read by pbc through the binary: an environment whose only Hiera level names the
# file, compiled (`pbc compile`), whose model holds each top-level key's value as read. Psych's
# reading of the same file is printed as JSON the same way. Both must give the same values, or
# both refuse the file (syntax error, or a document that is not a hash). Prints each
# difference and a summary; exits 1 on any difference.
require 'json'
require 'yaml'
require 'fileutils'
require 'open3'
require 'puppet'

pbc, work, *files = ARGV
abort 'usage: ruby yaml-differential.rb PBC WORKDIR FILE...' if pbc.nil? || work.nil?

# The quirks YAML 1.1 and libyaml are known for, each a small document, and their combinations:
# written to WORKDIR/quirks and compared like every other file.
QUIRK_VALUES = [
  "['x',\n]", "['x', 'y'\n]", "[a,\n  b,\n]", "{a: 'x'\n}", "{a: 1,\nb: 2}", "[\n'x']",
  'yes', 'No', 'on', 'OFF', 'y', 'n', '~', 'null', 'Null', '', '010', '0o10', '08', '0x1F', '0b101',
  '1_000', '1,000', '12:30', '1:30.5', '1e3', '1.0e+3', '.5', '-.inf', '.NaN', '+1', '-0',
  '123456789012345678901234', '2026-01-01', "'2026-01-01'", '2001-12-14t21:59:43.10-05:00',
  ':sym', "!!str 1", '!!int "12"', '!!float 1', '!!float 1e3', '!!bool "yes"', '!!null x',
  '!!binary aGVsbG8=', "!foo '12'", '!ruby/symbol foo', '"a\tb"', "'it''s'", '"\u00e9"',
  "|\n  line1\n  line2\n", ">\n  folded\n  text\n", "|-\n  kept\n", ">+\n  more\n\n",
  "\"multi\n  line\"", "plain\n  continued", 'a: b', 'x #not', '"#x"', '- 1', '[]', '{}',
  '[[1, [2]], {a: [b]}]', '&a 1', '!!set {a: }', '!ruby/object:Foo {}', 'x' * 5000,
  # Numbers at and beyond what pbc's values hold: 64-bit bounds, infinities, NaN.
  '1.0e+999', '-1.0e+999', '!!float .inf', '.Inf', '+.INF', '.nan', '.NAN', '[1, .inf]',
  '{.inf: 1}', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
  '-9223372036854775809', '0x1FFFFFFFFFFFFFFFF', '1_000_000_000_000_000_000_000', '!!int 99999999999999999999',
  '!!binary a*GVs bG8=', '!!binary aGVsbG8'
].freeze

QUIRK_DOCUMENTS = lambda do
  docs = {}
  QUIRK_VALUES.each_with_index { |v, i| docs["value_#{i}"] = "k: #{v}\nother: 1\n" }
  # Merge keys in every position, aliases of scalars, sequences and maps.
  base = "d: &d {one: 1, two: 2}\ne: &e {two: 3, three: 4}\ns: &s scalar\nl: &l [1, 2]\n"
  ['<<: *d', '<<: [*d, *e]', '<<: [*e, *d]', '<<: *s', '<<: *l', '<<: [*d, 1]', '"<<": *d',
   '!!str <<: *d', '<<: {x: 1}', '<<: []', '<<:'].each_with_index do |merge, i|
    docs["merge_first_#{i}"] = "#{base}m:\n  #{merge}\n  two: 9\n"
    docs["merge_last_#{i}"] = "#{base}m:\n  two: 9\n  #{merge}\n"
    docs["merge_flow_#{i}"] = "#{base}m: {two: 9, #{merge}}\n" unless merge.include?('!!')
  end
  docs['alias_scalar'] = "#{base}a: *s\nb: [*s, *l, *d]\n"
  docs['alias_unknown'] = "a: *nope\n"
  docs['alias_redefined'] = "a: &x 1\nb: &x 2\nc: *x\n"
  docs['alias_key'] = "k: &k name\n*k : value\n"
  # Document markers, empty documents, several documents.
  # A block scalar that ends the file without a line break; a `!` in plain text.
  docs['block_end_literal'] = "a: |\n  lit"
  docs['block_end_folded'] = "a: >\n  folded\n  text"
  docs['block_end_keep'] = "a: |+\n  lit"
  docs['block_end_strip'] = "a: |-\n  lit"
  docs['bang_in_plain'] = "a: Warning !important, read this\n"
  docs['bang_in_plain_after_flow'] = "a: [1]\nb: Warning !important, read this\n"
  docs['marker_only'] = "---\n"
  docs['marker_end'] = "---\na: 1\n...\n"
  docs['two_documents'] = "a: 1\n---\nb: 2\n"
  docs['directive'] = "%YAML 1.1\n---\na: 1\n"
  docs['comment_only'] = "# nothing\n"
  docs['empty'] = ''
  docs['null_document'] = "~\n"
  docs['not_a_hash'] = "- a\n- b\n"
  docs['scalar_document'] = "just text\n"
  # Keys that are not strings, repeated keys, empty values.
  docs['keys'] = "1: one\ntrue: t\n~: n\n1.5: f\n[a]: s\n{b: 1}: m\n:sym: y\n"
  docs['repeated'] = "a: 1\nb: 2\na: 3\n"
  docs['empty_values'] = "a:\nb: \nc: []\nd: {}\ne: ''\n"
  # Whitespace: tabs, a byte order mark, CRLF, a long plain scalar, trailing spaces.
  docs['tab_indent'] = "a:\n\tb: 1\n"
  docs['tab_value'] = "a:\tb\n"
  docs['tab_in_flow'] = "a: [1,\t2]\n"
  docs['bom'] = "\uFEFFa: 1\n"
  docs['crlf'] = "a: 1\r\nb:\r\n  - x\r\n"
  docs['long_plain'] = "a: #{'word ' * 20_000}\n"
  docs['trailing'] = "a: 1   \nb: two  \n"
  docs['deep'] = "a: #{'[' * 100}1#{']' * 100}\n"
  docs['indent_flow_low'] = "a:\n  b: [1,\n2]\n"
  docs['indent_seq_same'] = "a:\n- 1\n- 2\n"
  docs['tag_before_comma'] = "a: [!foo, 1]\n"
  # A tag directly before `,` in every flow position, beside `!` in text and quotes that only
  # look like one (pbc reads these in passes; see read in src/data/yaml.rs).
  docs['tag_before_comma_map'] = "c: {x: !!str, y: &an !bar, z: 2}\nd: \"q !x, y\"\ne: [p !y, z]\n"
  docs['tag_before_comma_key'] = "a: {!k, b: 1}\n"
  docs['tag_before_comma_nested'] = "a: [[!x, 1], {b: !y, c: [!!int, 2]}]\n"
  docs['tag_before_comma_after_text'] = "a: [!foo, 1]\nb: Warning !important, read this\nc: |\n  lit !z, x\n"
  docs['tag_before_comma_in_block'] = "a: [1]\nb: !t, x\n"
  docs['tag_before_comma_paren'] = "a: [x(!y, 1]\nb: [(!z, 2]\n"
  docs['tag_before_comma_error_after'] = "a: [!foo, 1]\nb: [1, 2\nc: !x, y\n"
  docs['bang_in_text'] = "a: Hello!, world\nb: \"x !y, z\"\nc: [a!b, c]\n"
  docs
end

quirks = File.join(work, 'quirks')
FileUtils.rm_rf(quirks)
FileUtils.mkdir_p(quirks)
QUIRK_DOCUMENTS.call.each do |name, text|
  path = File.join(quirks, "#{name}.yaml")
  File.binwrite(path, text)
  files << path
end

# Psych's value as JSON text would be: non-string keys as their text.
def jsonable(v)
  case v
  when Hash
    v.each_with_object({}) do |(k, x), h|
      name = case k
             when String then k
             when Symbol then ":#{k}"
             else k.to_s
             end
      h[name] = jsonable(x)
    end
  when Array then v.map { |x| jsonable(x) }
  when Symbol then ":#{v}"
  else v
  end
end

# Whether Psych's value holds a number pbc's values cannot hold (an infinity, NaN, an integer
# beyond 64 bits): pbc's model marks such a key (`unrepresentable`) and its lookups fail, so
# both sides stand for it as `:unrepresentable`.
def unrepresentable?(v)
  case v
  when Hash then v.any? { |k, x| unrepresentable?(k) || unrepresentable?(x) }
  when Array then v.any? { |x| unrepresentable?(x) }
  when Float then !v.finite?
  when Integer then v > 2**63 - 1 || v < -2**63
  else false
  end
end

# Equal as values and as kinds: Ruby's `1 == 1.0` would hide an Integer read as a Float.
def same?(a, b)
  case a
  when Hash
    b.is_a?(Hash) && a.keys == b.keys && a.all? { |k, v| same?(v, b[k]) }
  when Array
    b.is_a?(Array) && a.size == b.size && a.zip(b).all? { |x, y| same?(x, y) }
  else
    a.class == b.class && a == b
  end
end

# What Puppet 7's `yaml_data` makes of the file: Psych's document, symbol keys as strings at
# every depth; a document that is not a hash is read as empty (with a warning); a top-level
# key that is not a string is never found by a lookup (pbc leaves it out of its model).
def psych(path)
  data = Puppet::Util::Yaml.safe_load_file(path, [Symbol])
  return [:ok, {}] unless data.is_a?(Hash)
  data = Puppet::Pops::Lookup::HieraConfig.symkeys_to_string(data).select { |k, _| k.is_a?(String) && !k.empty? }
  [:ok, data.to_h { |k, v| [k, unrepresentable?(v) ? :unrepresentable : jsonable(v)] }]
rescue StandardError, Psych::Exception => e
  [:refused, e.message.lines.first.to_s.strip]
end

env = File.join(work, 'env')
compared = 0
same = 0
over_budget = 0
differences = []
files.each do |file|
  FileUtils.rm_rf(env)
  FileUtils.mkdir_p(File.join(env, 'data'))
  FileUtils.cp(file, File.join(env, 'data', 'file.yaml'))
  File.write(File.join(env, 'hiera.yaml'),
             "version: 5\nhierarchy:\n  - name: the file\n    path: file.yaml\n")
  out, err, status = Open3.capture3(pbc, 'compile', '--compact', env)
  if !status.success? && err =~ /error\[HIERA_INVALID_LOOKUP_OPTIONS\]/
    # Options every lookup would refuse (a corpus case of `pbc check`): the check refuses the
    # model, not the YAML. Both read the file again with that key renamed at its line's start,
    # which changes no structure.
    text = File.binread(file).gsub(/^lookup_options:/, 'not_lookup_options:')
    File.binwrite(File.join(env, 'data', 'file.yaml'), text)
    out, err, status = Open3.capture3(pbc, 'compile', '--compact', env)
  end
  ours =
    if status.success?
      model = JSON.parse(out, max_nesting: false)
      level = (model['hiera'] || []).first || { 'files' => [] }
      f = level['files'].first
      [:ok, f ? f['keys'].each_with_object({}) { |d, h| h[d['key']] = d['unrepresentable'] ? :unrepresentable : d['value'] } : {}]
    elsif err.include?('error[YAML_ALIAS_LIMIT]')
      # Psych shares what aliases name; pbc copies it, within a documented budget. Such a
      # file (an alias bomb) cannot be written out as JSON by either: counted apart.
      :over_budget
    elsif err =~ /error\[(DATA_FILE_SYNTAX_ERROR|INVALID_UTF8)\]/
      [:refused, err.lines.first.to_s.strip]
    elsif err =~ /error\[HIERA_INTERPOLATION/
      # A value Hiera cannot interpolate: the check refuses the model, not the YAML.
      :skip
    else
      [:refused, err.lines.first.to_s.strip]
    end
  next if ours == :skip
  if ours == :over_budget
    over_budget += 1
    next
  end
  theirs = psych(File.join(env, 'data', 'file.yaml'))
  compared += 1
  if ours[0] == theirs[0] && (ours[0] == :refused || same?(ours[1], theirs[1]))
    same += 1
  else
    differences << [file, ours, theirs]
  end
end
# Known divergences, each with its reason (scripts/yaml-divergences.tsv: a file's base name in
# the quirks, or a path, then the reason): listed, not failed.
known = {}
listed = File.join(__dir__, 'yaml-divergences.tsv')
File.readlines(listed).each do |line|
  next if line.start_with?('#') || line.strip.empty?
  name, reason = line.chomp.split("\t", 2)
  known[name] = reason
end
accepted, differences = differences.partition do |file, _, _|
  known.key?(File.basename(file)) || known.key?(file)
end
accepted.each do |file, _, _|
  puts "listed #{file}: #{known[File.basename(file)] || known[file]}"
end
differences.each do |file, ours, theirs|
  puts "DIFFERENT #{file}"
  puts "  pbc:   #{ours[0]} #{JSON.generate(ours[1], allow_nan: true)[0, 300]}"
  puts "  Psych: #{theirs[0]} #{JSON.generate(theirs[1], allow_nan: true)[0, 300]}"
end
puts "YAML: #{compared} documents compared, #{same} read alike, #{accepted.size} listed differences, " \
     "#{differences.size} unlisted (#{over_budget} over pbc's alias budget, not compared)"
exit(differences.empty? ? 0 : 1)
