" map.vim (ftdetect) — .map files are mapping-expression programs for mapc (this syntax, not Vim's MapServer one).
autocmd BufRead,BufNewFile *.map set filetype=map
