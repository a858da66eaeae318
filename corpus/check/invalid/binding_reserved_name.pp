# Names starting with `/` belong to the naming scheme (`/param/...`, `/var/...`, `/classes`).
bindings example {
  bind '/param/Class[ntp]/servers' to ['0.pool.ntp.org']
  bind String, '/classes' to 'ntp'
}
