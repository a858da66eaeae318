# A binding using converted Hiera answers: the converted integer adds, the Sensitive value
# passes through a binding unchanged.
bindings default {
  bind 'app::capacity' to lookup('app::workers') * 2
  bind 'app::secret_again' to lookup('app::password')
}
