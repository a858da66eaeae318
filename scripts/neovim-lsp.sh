#!/usr/bin/env bash
# `pbc lsp` with a real editor: Neovim's built-in LSP client, headless, runs
# scripts/neovim-lsp.lua against corpus/check/trees/include_typo (diagnostics, hover, go to
# definition). Installs Debian's neovim when missing; builds pbc with the profile PBC_PROFILE
# names (`release` unless set; `.ci/run` uses `ci`). Exit 0 when every check holds.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
profile=${PBC_PROFILE:-release}
if ! command -v nvim >/dev/null; then
  echo "neovim-lsp: installing Debian's neovim" >&2
  ${SUDO:-$(command -v sudo >/dev/null && [ "$(id -u)" != 0 ] && echo sudo)} \
    env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends neovim >/dev/null
fi
(cd "$here" && cargo build --profile "$profile" --quiet --bin pbc)
dir=$profile; [ "$profile" = dev ] && dir=debug
export PBC=$here/target/$dir/pbc
export TREE=$here/corpus/check/trees/include_typo
echo "neovim-lsp: $(nvim --version | head -n 1)" >&2
# A minute at most: a client waiting forever is a failure, not a hang of CI.
timeout 60 nvim --headless --clean -n -c "luafile $here/scripts/neovim-lsp.lua"
