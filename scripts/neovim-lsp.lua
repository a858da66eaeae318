-- Neovim's own LSP client (headless) against `pbc lsp`, as an editor user meets it: opens a
-- bindings file of a corpus tree, waits for its diagnostics, hovers a key, jumps to a key's
-- definition. Run by scripts/neovim-lsp.sh, which sets PBC (the binary) and TREE (the tree).
-- Prints what it checked; exits 1 at the first check that fails.
local pbc, tree = vim.env.PBC, vim.env.TREE

local function fail(message)
  io.stderr:write('neovim-lsp: FAIL: ' .. message .. '\n')
  vim.cmd('cquit 1')
end

local function say(message)
  io.stdout:write('neovim-lsp: ' .. message .. '\n')
end

local function open(relative)
  vim.cmd('edit ' .. vim.fn.fnameescape(tree .. '/' .. relative))
  return vim.api.nvim_get_current_buf()
end

local module_file = open('modules/ntp/bindings/default.pp')
local client = vim.lsp.start_client({ name = 'pbc', cmd = { pbc, 'lsp' }, root_dir = tree })
if not client then fail('the client did not start `pbc lsp`') end
vim.lsp.buf_attach_client(module_file, client)

-- 1. Diagnostics: the layer's include matches nothing, so this file's block is in no layer.
local arrived = vim.wait(30000, function() return #vim.diagnostic.get(module_file) > 0 end, 20)
if not arrived then fail('no diagnostics for ' .. vim.api.nvim_buf_get_name(module_file)) end
local diagnostic = vim.diagnostic.get(module_file)[1]
if diagnostic.code ~= 'NOT_IN_ANY_LAYER' or diagnostic.severity ~= vim.diagnostic.severity.WARN then
  fail('expected the warning NOT_IN_ANY_LAYER, got ' .. vim.inspect(diagnostic))
end
say(('diagnostics: %s at %d:%d: %s'):format(diagnostic.code, diagnostic.lnum + 1,
  diagnostic.col + 1, diagnostic.message:gsub('\n.*', '')))

local function request(buf, method, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }
  local answers = vim.lsp.buf_request_sync(buf, method, params, 30000)
  local answer = answers and answers[client]
  if not answer then fail(method .. ': no answer') end
  if answer.err then fail(method .. ': ' .. vim.inspect(answer.err)) end
  return answer.result
end

-- 2. Hover on `'ntp::servers'` (line 2): the explanation says why nothing answers it.
local hover = request(module_file, 'textDocument/hover', 1, 10)
local text = hover and hover.contents and hover.contents.value or ''
if not text:find('key `ntp::servers`', 1, true)
    or not text:find('which no layer includes', 1, true) then
  fail('hover: ' .. vim.inspect(hover))
end
say('hover: ' .. text:match('bound in [^\n]*'))

-- 3. Go to definition of `'a'` where the site's layer reads it, then jump there.
local site_file = open('bindings/default.pp')
vim.lsp.buf_attach_client(site_file, client)
local locations = request(site_file, 'textDocument/definition', 1, 8)
if type(locations) ~= 'table' or #locations ~= 1 then fail('definition: ' .. vim.inspect(locations)) end
vim.lsp.util.jump_to_location(locations[1], 'utf-16')
local cursor = vim.api.nvim_win_get_cursor(0)
local landed = vim.api.nvim_buf_get_name(0)
if not landed:find('/bindings/default.pp$') or cursor[1] ~= 2 or cursor[2] ~= 2 then
  fail(('definition: jumped to %s:%d:%d'):format(landed, cursor[1], cursor[2]))
end
say(('definition: jumped to %s:%d:%d'):format(landed:sub(#tree + 2), cursor[1], cursor[2] + 1))

vim.lsp.stop_client(client)
vim.wait(10000, function() return vim.lsp.get_client_by_id(client) == nil end, 20)
say('passed')
vim.cmd('qall!')
