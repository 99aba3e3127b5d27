" Vim 9 with ALE (Debian's vim and vim-ale 3.3) drives rollout-lsp, set up by the ALE block of docs/editors.md.
" Run by `make e2e-vim`: vim -N -u NONE -i NONE -es -S tests/vim/test_ale.vim, from the repository's root.
" ALE sends and reads byte columns and offers no positionEncoding; the block tells the server to use UTF-8
" columns. On a line with Korean text before a secret, the secret's diagnostic must cover exactly the secret's
" bytes, and a hover at the byte column of a call after Korean text must show that call's command, in plain text.
" Exits 0 when every check passes, 1 otherwise (an error in the test itself: 2).

let s:root = getcwd()
let s:checks = 0
let s:failures = 0
let s:output = []

function! s:Check(name, ok, detail) abort
  let s:checks += 1
  if a:ok
    call add(s:output, 'ok   ' . a:name)
  else
    let s:failures += 1
    call add(s:output, 'FAIL ' . a:name . ': ' . string(a:detail))
  endif
endfunction

function! s:Wait(condition, seconds) abort
  let l:n = 0
  while !eval(a:condition) && l:n < a:seconds * 10
    sleep 100m
    let l:n += 1
  endwhile
  return eval(a:condition)
endfunction

" the code block after <!-- snippet: NAME --> in docs/editors.md, written to a file to be sourced as it is
function! s:Snippet(name) abort
  let l:lines = readfile(s:root . '/docs/editors.md')
  let l:at = index(l:lines, '<!-- snippet: ' . a:name . ' -->')
  if l:at < 0 || l:lines[l:at + 1] !~# '^```'
    throw 'docs/editors.md has no snippet ' . a:name
  endif
  let l:end = index(l:lines, '```', l:at + 2)
  let l:file = tempname() . '.vim'
  call writefile(l:lines[l:at + 2 : l:end - 1], l:file)
  return l:file
endfunction

function! s:ByteColumn(line, text) abort
  return stridx(a:line, a:text) + 1
endfunction

function! s:Run() abort
  " `rollout-lsp` from this clone's .venv (ROLLOUT_BIN: another folder holding it); ALE from Debian's package
  let $PATH = (empty($ROLLOUT_BIN) ? s:root . '/.venv/bin' : $ROLLOUT_BIN) . ':' . $PATH
  " the docs' block as a vimrc would hold it: its `packadd! ale` finds Debian's vim-ale package
  filetype plugin on
  execute 'source ' . fnameescape(s:Snippet('vim-ale'))
  call s:Check('the block loads ALE with packadd', exists('*ale#linter#Define'), &runtimepath)
  runtime plugin/ale.vim " what Vim does after the vimrc (-u NONE loads no plugins itself)
  " ALE echoes a hover: the test keeps what it would show
  runtime autoload/ale/util.vim
  let s:shown = []
  function! ale#util#ShowMessage(string, ...) abort
    call add(s:shown, a:string)
  endfunction

  let l:folder = tempname()
  call mkdir(l:folder, 'p')
  let l:file = l:folder . '/rollout-korean.jsonl'
  call writefile(readfile(s:root . '/tests/vim/rollout-korean.jsonl', 'b'), l:file, 'b')
  execute 'edit ' . fnameescape(l:file)
  call s:Check('a rollout gets the filetype', &filetype ==# 'rollout', &filetype)

  ALELint
  call s:Wait('!empty(ale#engine#GetLoclist(bufnr("")))', 60)
  let l:found = ale#engine#GetLoclist(bufnr(''))
  let l:line = getline(1)
  let l:key = 'sk-proj-' . repeat('Ab12', 8)
  let l:start = s:ByteColumn(l:line, l:key)
  let l:got = map(copy(l:found), '[v:val.lnum, v:val.col, v:val.end_col, v:val.code]')
  call s:Check('the secret after Korean text, at its bytes', l:got ==# [[1, l:start, l:start + len(l:key) - 1, 'secret']],
        \ {'got': l:got, 'expected': [1, l:start, l:start + len(l:key) - 1]})
  call s:Check('bytes and characters differ on that line', l:start != charidx(l:line, l:start - 1) + 1, l:start)

  let l:column = s:ByteColumn(getline(2), 'tools.exec_command') + 2
  call cursor(2, l:column)
  ALEHover
  call s:Wait('!empty(s:shown)', 30)
  let l:hover = join(s:shown, "\n")
  call s:Check('a hover at the byte column of a call after Korean text', stridx(l:hover, 'pytest -q') >= 0, l:hover)
  " ALE reads hovers as plain text: no Markdown escapes, bold or fences
  call s:Check('the hover is plain text', stridx(l:hover, 'exec_command · command · executed: yes (it runs') == 0
        \ && stridx(l:hover, '```') < 0 && stridx(l:hover, '**') < 0, l:hover)
  call delete(l:folder, 'rf')
endfunction

try
  call s:Run()
catch
  call s:Check('no error in the test itself', 0, v:exception . ' at ' . v:throwpoint)
endtry
call add(s:output, printf('%d checks, %d failed', s:checks, s:failures))
call writefile(s:output, '/dev/stdout', 'a')  " appended: a log file that is standard output keeps what came before
execute s:failures == 0 ? 'qall!' : 'cquit 1'
