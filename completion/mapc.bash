# mapc.bash — bash completion for mapc: commands, each command's options, .map files, and the names a file declares.

# The names of one kind ("type", "tensor" or "kernel") declared in a .map file.
_mapc_declared()
{
    [[ -r $2 ]] || return
    sed -n "s/^[[:space:]]*$1[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p" -- "$2" 2>/dev/null
}

_mapc()
{
    local cur prev cmd file i
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="check eval table draw diff equiv norm lower describe export emit run where sequence dma tails dma-cost algebra help"

    local colors="--color=auto --color=always --color=never"
    # the command: the first word that is not the global --color option
    local cmdi
    cmd=""
    for (( cmdi = 1; cmdi < COMP_CWORD; cmdi++ )); do
        [[ ${COMP_WORDS[cmdi]} == --color* ]] || { cmd=${COMP_WORDS[cmdi]}; break; }
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version $colors" -- "$cur"))
        return
    fi

    local opts=""
    case $cmd in
        check) opts="--isa --help" ;;
        eval) opts="-e --help" ;;
        table) opts="--rows --cols --all --color=auto --color=always --color=never --max-cells --help" ;;
        draw) opts="-o --view --axes --color-by --rows --max-cells --time --packet --mode --type --help" ;;
        diff) opts="-o --view --axes --rows --max-cells --help" ;;
        emit) opts="-o --header --emit=obj --emit=asm --emit=llvm -O0 -O1 -O2 -O3 --cpu --prefix --isa --help" ;;
        run) opts="--m --n --k --threads --reps --seed --alpha --beta --check --isa --mpi --plan --help" ;;
        equiv|norm|lower|describe|where|tails|dma-cost) opts="--help" ;;
        export) opts="--to --lanes --warps --blocks --help" ;;
        sequence) opts="--time --packet --mode --type --cycles --help" ;;
        dma) opts="--time --packet --engines --stream --help" ;;
        algebra) opts="--check --help" ;;
    esac
    opts="$opts $colors"
    if [[ $cmd == help ]]; then   # mapc help COMMAND
        (( COMP_CWORD == cmdi + 1 )) && COMPREPLY=($(compgen -W "${commands% help}" -- "$cur"))
        return
    fi

    # values of options that take one
    case $prev in
        --isa) COMPREPLY=($(compgen -W "avx512 avx2 portable" -- "$cur")); return ;;
        --check) COMPREPLY=($(compgen -W "all auto" -- "$cur")); return ;;
        --mpi) COMPREPLY=($(compgen -W "on off auto" -- "$cur")); return ;;
        --mode) COMPREPLY=($(compgen -W "read write carve" -- "$cur")); return ;;
        --type) COMPREPLY=($(compgen -W "i4 i8 f8 bf16 f16 f32 i32 f64" -- "$cur")); return ;;
        --cycles) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
        --stream) COMPREPLY=($(compgen -W "default fit" -- "$cur")); return ;;
        --time|--packet|--engines) return ;;
        --cpu) COMPREPLY=($(compgen -W "native x86-64 x86-64-v2 x86-64-v3 x86-64-v4 skylake-avx512 znver4" -- "$cur")); return ;;
        -o|--header) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --color-by) COMPREPLY=($(compgen -W "padding unit tile position" -- "$cur")); return ;;
        --view) COMPREPLY=($(compgen -W "index buffer" -- "$cur")); return ;;
        --axes) return ;;
        -e|--max-cells|--rows|--cols|--m|--n|--k|--threads|--reps|--seed|--alpha|--beta|--prefix) return ;;
        --to) COMPREPLY=($(compgen -W "cute cute-tiler triton affine strided index-map" -- "$cur")); return ;;
        --lanes|--warps|--blocks) return ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi

    # the positional arguments so far (options and their values skipped)
    local -a args=()
    for (( i = cmdi + 1; i < COMP_CWORD; i++ )); do
        case ${COMP_WORDS[i]} in
            -o|--header|--isa|--check|--mpi|--cpu|--prefix|--max-cells|--rows|--cols|--color|--color-by|--view|--axes|--m|--n|--k|--threads|--reps|--seed|--alpha|--beta|--time|--packet|--engines|--mode|--type|--cycles|--stream) (( i++ )) ;;
            --to|--lanes|--warps|--blocks) (( i++ )) ;;
            -e) (( i++ )); args+=("-e") ;;
            -*) ;;
            *) args+=("${COMP_WORDS[i]}") ;;
        esac
    done

    if (( ${#args[@]} == 0 )) || [[ $cmd == check ]]; then
        [[ ${args[0]} == -e ]] && return
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -X '!*.map' -- "$cur") $(compgen -d -- "$cur"))
        return
    fi
    file=${args[0]}
    [[ $file == -e ]] && return
    case $cmd in
        run) (( ${#args[@]} == 1 )) &&
            COMPREPLY=($(compgen -W "$(_mapc_declared kernel "$file") $(_mapc_declared copy "$file")" -- "$cur")) ;;
        where) (( ${#args[@]} == 1 )) && COMPREPLY=($(compgen -W "$(_mapc_declared tensor "$file")" -- "$cur")) ;;
        dma) (( ${#args[@]} <= 2 )) && COMPREPLY=($(compgen -W "$(_mapc_declared tensor "$file")" -- "$cur")) ;;
        sequence|tails) (( ${#args[@]} <= 2 )) && COMPREPLY=($(compgen -W "$(_mapc_declared type "$file")" -- "$cur")) ;;
        table|draw) (( ${#args[@]} == 1 )) &&
            COMPREPLY=($(compgen -W "$(_mapc_declared type "$file") $(_mapc_declared tensor "$file")" -- "$cur")) ;;
        eval|norm|lower|describe) (( ${#args[@]} == 1 )) && COMPREPLY=($(compgen -W "$(_mapc_declared type "$file")" -- "$cur")) ;;
        export) (( ${#args[@]} == 1 )) && COMPREPLY=($(compgen -W "$(_mapc_declared type "$file")" -- "$cur")) ;;
        equiv|diff) (( ${#args[@]} <= 2 )) && COMPREPLY=($(compgen -W "$(_mapc_declared type "$file")" -- "$cur")) ;;
    esac
}
complete -F _mapc mapc
