bindings roles::web {
  include apache
  bind 'apache::workers' to 16
}
