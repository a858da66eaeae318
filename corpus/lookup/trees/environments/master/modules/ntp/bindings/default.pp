# master's own ntp module: it comes first on the modulepath, so shared/modules/ntp is not
# used in master's environments at all (not even for keys this one does not bind).
bindings ntp::default {
  bind 'ntp::servers' to ['0.pool.ntp.org']
}
