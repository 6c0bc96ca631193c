#!/bin/sh
# check_outputs.sh — the files mapc commands write (compiler/driver/out_file.c): an output naming an input,
# directly or through a symbolic or hard link, is refused for emit, draw and diff with the input untouched;
# outputs replace old files only once complete (a failure leaves the old file and no temporary file), keep
# the replaced file's mode, write through a link to the file it names, and write devices in place.
# usage: check_outputs.sh MAPC PROGRAM.map
mapc=$(realpath "$1")
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # check NAME COMMAND...: one case, passed when COMMAND succeeds
    name=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name"; fi
}
status() { "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }
no_temporaries() { test -z "$(ls -A "$tmp/d" | grep '^\.')"; }

mkdir "$tmp/d"
cd "$tmp/d" || exit 1
cp "$src" p.map
cp p.map orig
# the program itself under a picture's name, a symbolic link and a hard link to it
cp p.map prog.svg
ln -s p.map sym.svg
ln p.map hard.png
ln -s p.map sym.o
for out in prog.svg sym.svg hard.png; do
    in=p.map
    test "$out" = prog.svg && in=prog.svg
    check "draw -o $out (the input $in) is a usage error" test "$(status "$mapc" draw "$in" RowMajor -o "$out")" = 2
    check "draw -o $out says why" grep -q "mapc: -o $out would overwrite the input file" "$tmp/err"
    check "the input $in is intact after draw -o $out" cmp -s "$in" orig
    cat orig >"$in" # for the next cases, should it not be (the inode kept: hard.png is p.map)
    check "diff -o $out (the input $in) is a usage error" \
        test "$(status "$mapc" diff "$in" RowMajor Blocked -o "$out")" = 2
    check "diff -o $out says why" grep -q "would overwrite the input file" "$tmp/err"
    check "the input $in is intact after diff -o $out" cmp -s "$in" orig
    cat orig >"$in"
done
status "$mapc" draw p.map RowMajor -o sym.svg >/dev/null
cat orig >p.map
check "draw -o a link names the input it reaches" grep -q "mapc: -o sym.svg would overwrite the input file, p.map" \
    "$tmp/err"
check "emit -o a link to the input is a usage error" test "$(status "$mapc" emit p.map -o sym.o)" = 2
check "emit --header a link to the input is a usage error" \
    test "$(status "$mapc" emit p.map -o x.o --header sym.o)" = 2
check "emit --header says why" grep -q "mapc: --header sym.o would overwrite the input file, p.map" "$tmp/err"
check "the input is intact after emit" cmp -s p.map orig
cat orig >p.map
check "no output was made by a refusal" test ! -e x.o
check "no temporary file is left by refusals" no_temporaries

# a picture over an old file: replaced whole, its mode kept, no temporary left
echo old >pic.svg
chmod 640 pic.svg
check "draw over an old file" test "$(status "$mapc" draw p.map RowMajor -o pic.svg)" = 0
check "the old file is replaced by the picture" grep -q "<svg" pic.svg
check "the replaced file keeps its mode" test "$(stat -c %a pic.svg)" = 640
# a new file: 0666 less the umask
check "a new picture" test "$(umask 027 && status "$mapc" draw p.map RowMajor -o new.svg)" = 0
check "a new file has 0666 less the umask" test "$(stat -c %a new.svg)" = 640
# through a link to an output: the file it names is written, the link stays
echo old >target.svg
ln -s target.svg out-link.svg
check "draw through a link to an old picture" test "$(status "$mapc" diff p.map RowMajor RowMajor -o out-link.svg)" = 0
check "the link stays a link" test -L out-link.svg
check "the file the link names is written" grep -q "<svg" target.svg
check "no temporary file is left by writes" no_temporaries

# a failure after the output was started leaves the old files as they were and no temporary file
echo old-object >keep.o
check "emit with an unwritable header fails" test "$(status "$mapc" emit p.map -o keep.o --header no/such/dir.h)" = 1
check "the failure names the header" grep -q "mapc: cannot write no/such/dir.h" "$tmp/err"
check "the old object is untouched" test "$(cat keep.o)" = old-object
echo old >big.svg
check "draw refused for its size fails" test "$(status "$mapc" draw p.map RowMajor -o big.svg --max-cells 10)" = 1
check "the old picture is untouched" test "$(cat big.svg)" = old
check "no temporary file is left by failures" no_temporaries
check "emit and its header" test "$(status "$mapc" emit p.map -o keep.o --header keep.h)" = 0
check "the object is replaced" sh -c "head -c 4 keep.o | grep -q ELF"
check "the header is written" grep -q "MAPC_GEN_" keep.h

# a device is written in place, never replaced (as root, a rename would replace /dev/null)
check "emit -o /dev/null" test "$(status "$mapc" emit p.map -o /dev/null)" = 0
check "/dev/null is still a device" test -c /dev/null
echo "$passed passed, $failed failed"
test "$failed" = 0
