-- Drives Neovim as a person would, after the README's init.lua: opens a tool, waits for its diagnostics,
-- types `next: ` and asks for completion, fixes the mistake, renames a step. What it saw goes to
-- $TOOLGEN_REPORT as JSON; then it quits.
local report = { steps = {} }
local function finish()
  local file = io.open(os.getenv('TOOLGEN_REPORT'), 'w')
  file:write(vim.fn.json_encode(report))
  file:close()
  vim.cmd('qall!')
end
local function wait(what, done)
  table.insert(report.steps, what)
  if not vim.wait(60000, done, 50) then
    report.failed = what
    finish()
  end
end
local function line_of(buf, needle)
  for index, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local at = line:find(needle, 1, true)
    if at then return index - 1, at - 1 end
  end
  error('no ' .. needle)
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TOOLGEN_FILE')))
  local buf = vim.api.nvim_get_current_buf()
  report.filetype = vim.bo[buf].filetype
  wait('a client attached', function() return #vim.lsp.get_active_clients() > 0 end)
  report.client = vim.lsp.get_active_clients()[1].name

  wait('diagnostics', function() return #vim.diagnostic.get(buf) > 0 end)
  report.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(report.diagnostics, { code = d.code, lnum = d.lnum, col = d.col, message = d.message })
  end

  -- Type `next: ` on a line of its own under the first step's on_success, and ask what may go there.
  local row = line_of(buf, 'on_success:')
  vim.api.nvim_buf_set_lines(buf, row + 1, row + 1, false, { '          next: ' })
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = row + 1, character = #'          next: ' },
  }
  local answers = vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, 60000) or {}
  report.completion = {}
  for _, answer in pairs(answers) do
    for _, item in ipairs(answer.result or {}) do table.insert(report.completion, item.label) end
  end
  vim.api.nvim_buf_set_lines(buf, row + 1, row + 2, false, { '          next: count_up' })

  -- Fix the misspelt variable as a person would: edit the line.
  local bad, col = line_of(buf, 'state.txt')
  local text = vim.api.nvim_buf_get_lines(buf, bad, bad + 1, false)[1]
  vim.api.nvim_buf_set_lines(buf, bad, bad + 1, false, { text:sub(1, col) .. 'state.text' .. text:sub(col + 10) })
  wait('diagnostics cleared', function() return #vim.diagnostic.get(buf) == 0 end)

  -- Rename the step `count_up` from its id, as :lua vim.lsp.buf.rename('tally') does.
  local id_row, id_col = line_of(buf, 'id: count_up')
  vim.api.nvim_win_set_cursor(0, { id_row + 1, id_col + #'id: ' + 1 })
  vim.lsp.buf.rename('tally')
  wait('the rename applied', function()
    return not table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'):find('count_up', 1, true)
  end)
  report.renamed = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end)
if not ok then report.failed = tostring(err) end
finish()
