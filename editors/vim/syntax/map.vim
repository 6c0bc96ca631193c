" map.vim — Vim syntax highlighting for mapc's mapping-expression programs (.map files).
if exists("b:current_syntax")
  finish
endif

" statements and cell names
syn keyword mapStatement const type assert copy as tensor kernel
syn keyword mapCell pad oob overflow
syn keyword mapPadKind top zero bottom contained containedin=mapCellArgs
" the macro-like forms: axes![...], m![...], i![...], tiled![...], strided![...], and the layouts of other
" systems cute![...], cute_tiler![...], triton![...], affine![...], index_map![...]
syn match mapMacro "\<\(axes\|m\|i\|tiled\|strided\|cute\|cute_tiler\|triton\|affine\|index_map\)!"
" memories, their dimensions and element types
syn keyword mapMemory HostTensor HbmTensor DmTensor
syn keyword mapElemType f32 f64 bf16 f16 i8 i32
" kernel clauses and grid dimensions
syn keyword mapClause tile pack order grid split chip cluster slice
" descriptor fields and orders
syn keyword mapField shape tile_shape outer inner outer_layout inner_layout outer_strides inner_strides inner_tiled strides offset
syn keyword mapOrder row_major col_major column_major
syn region mapCellArgs matchgroup=mapCell start="\<pad(" end=")" contains=mapPadKind oneline transparent

" numbers, axis names (uppercase first), {NAME} escapes
syn match mapNumber "\<0[xX][0-9a-fA-F]\+\>"
syn match mapNumber "\<[0-9]\+\>"
syn match mapAxis "\<[A-Z][A-Za-z0-9_]*\>"
syn match mapEscape "{[A-Za-z_][A-Za-z0-9_]*}"
" operators: padding kinds, arrows, comparisons, the postfix operators
syn match mapPadding "#\({[*0!]}\)\="
syn match mapOperator "->\|==\|!=\|<=\|>=\|[=/%*<>.]"

syn keyword mapTodo TODO FIXME XXX contained
syn match mapComment "//.*$" contains=mapTodo,@Spell
syn region mapComment start="/\*" end="\*/" contains=mapTodo,@Spell

hi def link mapStatement Statement
hi def link mapCell Constant
hi def link mapPadKind Constant
hi def link mapMacro PreProc
hi def link mapMemory Type
hi def link mapElemType Type
hi def link mapClause Keyword
hi def link mapField Identifier
hi def link mapOrder Constant
hi def link mapNumber Number
hi def link mapAxis Identifier
hi def link mapEscape Special
hi def link mapPadding Operator
hi def link mapOperator Operator
hi def link mapTodo Todo
hi def link mapComment Comment

let b:current_syntax = "map"
