# Sourced by scripts/conformance.sh and scripts/hiera-conformance.sh (with `here` set to the
# repository): installs Debian's puppet-agent and the puppet-module-* packages of
# scripts/corpus-packages.txt when they are missing.
if ! command -v puppet >/dev/null || ! dpkg-query -W puppet-module-puppetlabs-stdlib >/dev/null 2>&1; then
  echo "installing puppet-agent and the module packages" >&2
  export DEBIAN_FRONTEND=noninteractive TMPDIR=/var/tmp
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  # shellcheck disable=SC2046
  $sudo_ apt-get install -y -qq --no-install-recommends puppet-agent \
    $(grep -v '^#' "$here/scripts/corpus-packages.txt") >/dev/null
fi
