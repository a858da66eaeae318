# A `)` is missing: `[...] { fail(...) }` reads as a resource body that does not parse. The syntax
# error is the only report (no "not valid as a resource" cascade), as in Puppet.
if !($ensure in ['running', 'stopped'] {
  fail('ensure must be running or stopped')
}
