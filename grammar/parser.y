/* parser.y — the Lemon grammar of .map files; actions build checked mappings through sema_*. */

%name mapc_parser
%token_prefix TK_
%token_type {Token}
%extra_argument {Parser *ps}
%stack_size 4096

%include {
#include <assert.h>
#include <stdlib.h>
#include "front/front_impl.h"
}

%syntax_error {
    ps->syntax_errors++;
    parse_syntax_error(ps, yymajor, TOKEN);
}
%stack_overflow {
    diag_error(&ps->prog->diags, (Loc){ps->src, 0, 0}, "input nested too deeply for the parser");
    ps->stopped = true;
}

/* Tokens the lexer produces (fixes their numbering). */
%token KW_AXES KW_M KW_I KW_CONST KW_TYPE KW_ASSERT KW_PAD KW_OOB KW_OVERFLOW IDENT NUM
       LBRACK RBRACK LPAREN RPAREN LBRACE RBRACE COMMA SEMI COLON EQEQ NE EQ SLASH PERCENT
       HASH STAR BANG EXPR_START KW_COPY KW_AS ARROW.
/* Tensor declarations (docs/language.md §5). */
%token KW_TENSOR LT GT.
/* Layout descriptors (docs/language.md §7): tiled![...], strided![...], hexadecimal layout tags. */
%token KW_TILED KW_STRIDED HEX.
/* Layouts of other systems (docs/interop.md): cute![...], cute_tiler![...], triton![...], affine![...] and
 * index_map![...] with their axis list, one token each (the lexer takes the body whole). */
%token FOREIGN.
/* GEMM kernels (docs/language.md §6). */
%token KW_KERNEL.
/* A lone index literal (prog_parse_index). */
%token INDEX_START.
/* NPU movement assertions (sema_movement.c): sequence(...) == [n:s, ...]:P, dma(S -> D).cycles <= N. */
%token DOT LE GE.

%type mapping {const Map *}
%type mapref {const Map *}
%type mlist {const Map *}
%type items {MapList *}
%type postfix {const Map *}
%type atom {const Map *}
%type padkind {PadKind}
%type arg {Arg}
%type cellv {CellLit}
%type ilist {MapList *}
%type ientries {MapList *}

input ::= stmts.
input ::= EXPR_START mapref(E). { ps->expr = E; ps->expr_ok = E != NULL; }
input ::= INDEX_START cellv(C). { ps->index = C; }

stmts ::= .
stmts ::= stmts stmt.

stmt ::= KW_AXES LBRACK axis_list RBRACK SEMI.
stmt ::= KW_AXES LBRACK axis_list COMMA RBRACK SEMI.
axis_list ::= axis_decl.
axis_list ::= axis_list COMMA axis_decl.
axis_decl ::= IDENT(N) EQ NUM(V). { sema_axis(ps, N, V); }

stmt ::= KW_CONST IDENT(N) EQ NUM(V) SEMI. { sema_const(ps, N, V); }

stmt ::= type_head(N) mapping(M) SEMI. { sema_type(ps, N, M); ps->defining = NULL; }
/* A syntax error in the mapping still defines the name, as a rejected type: its uses add no error. */
stmt ::= type_head(N) error SEMI. { sema_type(ps, N, NULL); ps->defining = NULL; }
%type type_head {Token}
type_head(H) ::= KW_TYPE IDENT(N) EQ. { H = N; ps->defining = arena_strndup(&ps->prog->arena, N.s, N.len); }

stmt ::= KW_ASSERT(A) mapref(M) LBRACK NUM(P) RBRACK EQEQ cellv(C) SEMI. { sema_assert_cell(ps, A.loc, M, P, &C); }
stmt ::= KW_ASSERT(A) mapref(X) EQEQ mapref(Y) SEMI. { sema_assert_equiv(ps, A.loc, X, Y, true); }
stmt ::= KW_ASSERT(A) mapref(X) NE mapref(Y) SEMI. { sema_assert_equiv(ps, A.loc, X, Y, false); }

/* NPU movement (sema_movement.c): "assert sequence(BUF; TIME; PACKET; MODE[; TYPE]) == [n:s, ...]:P;", with .raw,
 * and "assert dma(SRC -> DST[; TIME; PACKET[; ENGINES]]).cycles <= N;" (.read and .write take configs). The callee
 * and the field are words the checker interprets. */
%type mvarg {MvArg}
%type mvargs {MvArgs *}
%type seqlit {SeqLit *}
%type seqents {SeqLit *}
%type mvcmp {int}
stmt ::= KW_ASSERT(A) IDENT(F) LPAREN mvargs(L) RPAREN EQEQ seqlit(C) SEMI. { sema_assert_movement(ps, A.loc, F, L, NULL, TK_EQEQ, C, 0); }
stmt ::= KW_ASSERT(A) IDENT(F) LPAREN mvargs(L) RPAREN DOT IDENT(G) EQEQ seqlit(C) SEMI. { sema_assert_movement(ps, A.loc, F, L, &G, TK_EQEQ, C, 0); }
stmt ::= KW_ASSERT(A) IDENT(F) LPAREN mvargs(L) RPAREN DOT IDENT(G) mvcmp(O) NUM(N) SEMI. { sema_assert_movement(ps, A.loc, F, L, &G, O, NULL, N.num); }
mvcmp(R) ::= EQEQ. { R = TK_EQEQ; }
mvcmp(R) ::= NE. { R = TK_NE; }
mvcmp(R) ::= LT. { R = TK_LT; }
mvcmp(R) ::= LE. { R = TK_LE; }
mvcmp(R) ::= GT. { R = TK_GT; }
mvcmp(R) ::= GE. { R = TK_GE; }
mvarg(R) ::= IDENT(N). { R = (MvArg){.word = N}; }
mvarg(R) ::= mapping(M). { R = (MvArg){.map = M, .is_map = true}; }
mvarg(R) ::= IDENT(S) ARROW IDENT(D). { R = (MvArg){.word = S, .to = D, .arrow = true}; }
mvargs(R) ::= mvarg(A). { R = sema_mv_arg(ps, NULL, A); }
mvargs(R) ::= mvargs(L) SEMI mvarg(A). { R = sema_mv_arg(ps, L, A); }
seqlit(R) ::= LBRACK(B) RBRACK COLON NUM(P). { R = sema_seq_entry(ps, NULL, B, 0, 0); if (R) R->packet = P.num; }
seqlit(R) ::= LBRACK seqents(L) RBRACK COLON NUM(P). { R = L; if (R) R->packet = P.num; }
seqents(R) ::= NUM(N) COLON NUM(S). { R = sema_seq_entry(ps, NULL, N, N.num, S.num); }
seqents(R) ::= seqents(L) COMMA NUM(N) COLON NUM(S). { R = sema_seq_entry(ps, L, N, N.num, S.num); }

/* A relayout kernel: every live cell of DST receives the SRC element with the same index. */
stmt ::= KW_COPY(C) IDENT(N) COLON mapref(S) ARROW mapref(D) KW_AS IDENT(T) SEMI. { sema_copy(ps, C.loc, N, S, D, T); }

/* A tensor in a memory: "tensor H: HbmTensor<bf16, m![1], m![A, B]>;" (docs/language.md §5). */
%type tmaps {MapList *}
stmt ::= KW_TENSOR(K) IDENT(N) COLON IDENT(T) LT IDENT(E) COMMA tmaps(L) GT SEMI. { sema_tensor(ps, K.loc, N, NULL, T, E, L); }
/* A syntax error after the name still defines it, as a rejected tensor: its uses add no error. */
stmt ::= KW_TENSOR IDENT(N) error SEMI. { sema_tensor_rejected(ps, N); }
/* With its axes named, "tensor A[I, K]: DmTensor<...>;": digits of other axes replicate it. */
stmt ::= KW_TENSOR(K) IDENT(N) LBRACK kitems(X) RBRACK COLON IDENT(T) LT IDENT(E) COMMA tmaps(L) GT SEMI. {
    sema_tensor(ps, K.loc, N, X, T, E, L);
}
tmaps(R) ::= mapref(M). { R = sema_list_add(ps, NULL, M, 0, (Loc){0}); }
tmaps(R) ::= tmaps(L) COMMA mapref(M). { R = sema_list_add(ps, L, M, 0, (Loc){0}); }

/* A GEMM kernel (KernelDecl in ast.h; checked by sema_kernel.c):
 *
 *   kernel NAME: C[M, N] = A[M, K] * B[K, N] {
 *       tile M = 96, N = 384, K = 256;
 *       pack A = m![M / 12, K, M % 12];
 *       pack B = m![N / 32, K, N % 32];
 *       order N, K, M;
 *       split M;
 *   }
 *
 * optionally followed by ';'. C, A and B name tensors, M, N and K axes (roles by position); tile,
 * order and split name the axes as written, pack names the operand by its role (A or B). A clause is a
 * word and a comma-separated list of items NAME, NAME = NUM or NAME = m![...]; the words (tile, pack,
 * order, split) are not reserved, the checker interprets them. After the tile clause, M, N and K denote
 * the tile axes until the closing '}'. A syntax error in the header resumes at its '{' (or at a ';'),
 * one in a clause at the clause's ';' or at the body's '}'. */
%type koperand {KOperand}
%type kitems {KItem *}
%type kitem {KItem *}
stmt ::= khead kbody.
stmt ::= khead kbody SEMI.
stmt ::= KW_KERNEL error SEMI.
khead ::= KW_KERNEL IDENT(N) COLON koperand(C) EQ koperand(A) STAR koperand(B) LBRACE. {
    sema_kernel_begin(ps, N, (KOperand[3]){C, A, B});
}
khead ::= KW_KERNEL(K) error LBRACE. { sema_kernel_begin(ps, K, NULL); }
koperand(R) ::= IDENT(T) LBRACK IDENT(X) COMMA IDENT(Y) RBRACK. { R = (KOperand){T, {X, Y}}; }
kbody ::= kclauses RBRACE. { sema_kernel_end(ps); }
kbody ::= kclauses error RBRACE. { sema_kernel_end(ps); }
kclauses ::= .
kclauses ::= kclauses kclause.
kclause ::= kword(W) kitems(L) SEMI. { sema_kernel_clause(ps, W, L); }
/* The clause word is seen before its items are parsed: in a grid clause M and N denote the kernel's own
 * axes, not the tile axes. */
%type kword {Token}
kword(R) ::= IDENT(W). { R = W; sema_kernel_word(ps, W); }
kclause ::= error SEMI.
kitems(R) ::= kitem(I). { R = I; }
kitems(R) ::= kitems(L) COMMA kitem(I). { I->next = L; R = I; }
kitem(R) ::= IDENT(N). { R = sema_kernel_item(ps, KITEM_NAME, N, N, NULL); }
kitem(R) ::= IDENT(N) EQ NUM(V). { R = sema_kernel_item(ps, KITEM_NUM, N, V, NULL); }
kitem(R) ::= IDENT(N) EQ KW_M(K) LBRACK mlist(L) RBRACK. { R = sema_kernel_item(ps, KITEM_MAP, N, K, L); }

stmt ::= error SEMI. { ps->defining = NULL; }

mapref(R) ::= IDENT(N). { R = sema_type_ref(ps, N); }
mapref(R) ::= mapping(M). { R = M; }

mapping(R) ::= KW_M LBRACK mlist(L) RBRACK. { R = L; }

/* Layout descriptors (desc.h): fields are collected raw, then checked and converted to a mapping. */
%type dfields {DescField *}
%type dfieldl {DescField *}
%type dvalue {DescVal *}
%type dlist {DescItem *}
%type ditems {DescItem *}
mapping(R) ::= KW_TILED(K) LBRACK dfields(F) RBRACK. { R = sema_tiled(ps, K.loc, F); }
mapping(R) ::= KW_STRIDED(K) LBRACK dfields(F) RBRACK. { R = sema_strided(ps, K.loc, F); }
mapping(R) ::= FOREIGN(F). { R = sema_foreign(ps, F); }
dfields(R) ::= dfieldl(F). { R = F; }
dfields(R) ::= dfieldl(F) COMMA. { R = F; }
dfieldl(R) ::= IDENT(K) COLON dvalue(V). { R = desc_syn_field(ps, NULL, K, V); }
dfieldl(R) ::= dfieldl(L) COMMA IDENT(K) COLON dvalue(V). { R = desc_syn_field(ps, L, K, V); }
dvalue(R) ::= LBRACK(B) dlist(L) RBRACK. { R = desc_syn_value(ps, DESC_V_LIST, B, L, NULL); }
dvalue(R) ::= IDENT(W). { R = desc_syn_value(ps, DESC_V_WORD, W, NULL, NULL); }
dvalue(R) ::= IDENT(W) LBRACK dlist(L) RBRACK. { R = desc_syn_value(ps, DESC_V_CALL, W, L, NULL); }
dvalue(R) ::= NUM(N). { R = desc_syn_value(ps, DESC_V_NUM, N, NULL, NULL); }
dvalue(R) ::= HEX(N). { R = desc_syn_value(ps, DESC_V_NUM, N, NULL, NULL); }
dvalue(R) ::= KW_TILED(K) LBRACK dfields(F) RBRACK. { R = desc_syn_value(ps, DESC_V_TILED, K, NULL, F); }
dlist(R) ::= . { R = NULL; }
dlist(R) ::= ditems(L). { R = L; }
dlist(R) ::= ditems(L) COMMA. { R = L; }
ditems(R) ::= IDENT(N). { R = desc_syn_item(ps, NULL, N, 0, true); }
ditems(R) ::= NUM(N). { R = desc_syn_item(ps, NULL, N, N.num, true); }
ditems(R) ::= LBRACE IDENT(N) RBRACE. { uint64_t v = 0; bool ok = sema_escape_const(ps, N, &v); N.kind = TK_NUM; R = desc_syn_item(ps, NULL, N, v, ok); }
ditems(R) ::= ditems(L) COMMA IDENT(N). { R = desc_syn_item(ps, L, N, 0, true); }
ditems(R) ::= ditems(L) COMMA NUM(N). { R = desc_syn_item(ps, L, N, N.num, true); }
ditems(R) ::= ditems(L) COMMA LBRACE IDENT(N) RBRACE. { uint64_t v = 0; bool ok = sema_escape_const(ps, N, &v); N.kind = TK_NUM; R = desc_syn_item(ps, L, N, v, ok); }

mlist(R) ::= items(I). { R = sema_pair_list(ps, I); }
mlist(R) ::= items(I) COMMA. { R = sema_pair_list(ps, I); }
items(R) ::= postfix(P). { R = sema_list_add(ps, NULL, P, 0, (Loc){0}); }
items(R) ::= items(I) COMMA(C) postfix(P). { R = sema_list_add(ps, I, P, 0, C.loc); }

postfix(R) ::= atom(A). { R = A; }
postfix(R) ::= postfix(L) SLASH(O) arg(N). { R = sema_postfix(ps, MAP_STRIDE, PAD_TOP, L, N.ok, N.n, O.loc); }
postfix(R) ::= postfix(L) PERCENT(O) arg(N). { R = sema_postfix(ps, MAP_MOD, PAD_TOP, L, N.ok, N.n, O.loc); }
postfix(R) ::= postfix(L) EQ(O) arg(N). { R = sema_postfix(ps, MAP_RESIZE, PAD_TOP, L, N.ok, N.n, O.loc); }
postfix(R) ::= postfix(L) HASH(O) arg(N). { R = sema_postfix(ps, MAP_PAD, PAD_TOP, L, N.ok, N.n, O.loc); }
postfix(R) ::= postfix(L) HASH(O) padkind(P) arg(N). { R = sema_postfix(ps, MAP_PAD, P, L, N.ok && P, N.n, O.loc); }

padkind(R) ::= LBRACE STAR RBRACE. { R = PAD_TOP; }
padkind(R) ::= LBRACE BANG RBRACE. { R = PAD_BOTTOM; }
padkind(R) ::= LBRACE NUM(N) RBRACE. {
    if (N.num == 0) {
        R = PAD_ZERO;
    } else {
        diag_error(&ps->prog->diags, N.loc, "padding kind must be {*}, {0} or {!}, not {%.*s}", (int)N.len, N.s);
        R = 0;
    }
}

/* The operator argument: a number, or a {CONST} escape (ok is false if it did not resolve). */
arg(R) ::= NUM(N). { R = (Arg){N.num, true}; }
arg(R) ::= LBRACE IDENT(N) RBRACE. { R.n = 0; R.ok = sema_escape_const(ps, N, &R.n); }

atom(R) ::= IDENT(N). { R = sema_symbol(ps, N); }
atom(R) ::= NUM(N). { R = sema_broadcast(ps, N); }
atom(R) ::= LBRACK mlist(L) RBRACK. { R = L; }
atom(R) ::= LPAREN mlist(L) RPAREN. { R = L; }
atom(R) ::= LBRACE IDENT(N) RBRACE. { R = sema_escape_type(ps, N); }

cellv(R) ::= KW_I(I) LBRACK ilist(L) RBRACK. { R = (CellLit){.ok = sema_index_lit(ps, L), .is_index = true, .terms = L, .loc = I.loc}; }
cellv(R) ::= KW_PAD(P) LPAREN IDENT(N) RPAREN. { R = (CellLit){.loc = P.loc}; R.ok = sema_pad_name(ps, N, &R.kind); }
cellv(R) ::= KW_OOB(T). { R = (CellLit){.ok = true, .kind = CELL_OOB, .loc = T.loc}; }
cellv(R) ::= KW_OVERFLOW(T). { R = (CellLit){.ok = true, .kind = CELL_OVERFLOW, .loc = T.loc}; }

ilist(R) ::= . { R = NULL; }
ilist(R) ::= ientries(E). { R = E; }
ilist(R) ::= ientries(E) COMMA. { R = E; }
ientries(R) ::= postfix(P) COLON(C) NUM(V). { R = sema_list_add(ps, NULL, P, V.num, C.loc); }
ientries(R) ::= ientries(L) COMMA postfix(P) COLON(C) NUM(V). { R = sema_list_add(ps, L, P, V.num, C.loc); }
