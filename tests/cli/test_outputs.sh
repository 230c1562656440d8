# test_outputs.sh - what -o and --save-db do to what is already there (issue 9, points 9-10):
# a FIFO or a device is written as it is and stays what it was; a symlink stays a link and its
# target is replaced; an existing file is replaced only with --force (exit 2 and a message
# without), through a temp file renamed into place, keeping its mode (and owner); a new file
# follows the umask; a stale temp file that is not ours survives.
# Never aimed at a real /dev node (a rename over one would replace it, as root): the FIFO and
# the devices are made here, with mkfifo and mknod (c 1 7 is a /dev/full twin, c 1 3 /dev/null).
. tests/cli/lib.sh
W=$(pwd)/sample-traces/dcu-weather-transformer
D=$(pwd)/$DCUTOP
case "$DCUTOP" in /*) D=$DCUTOP ;; esac
O=$TMP/o
mkdir "$O"
TMPDIR=$TMP/tmpdir # --save-db into a FIFO or device writes its temp file here
export TMPDIR
mkdir "$TMPDIR"

"$D" -q --export hotspots "$W" >"$TMP/hot.ref"
"$D" -q --report "$W" >"$TMP/report.ref"
same "the reference export has the 18 kernels and a header" 19 "$(wc -l <"$TMP/hot.ref" | tr -d ' ')"
kernels() { sqlite3 -batch -init /dev/null "$1" 'select count(*) from kernel_summary'; }

# run_out MODE PATH [OPTION...]: export and report write -o PATH, db writes --save-db PATH
run_out() {
    m=$1
    p=$2
    shift 2
    case $m in
    export) "$D" -q --export hotspots -o "$p" "$@" "$W" ;;
    report) "$D" -q --report -o "$p" "$@" "$W" ;;
    db) "$D" -q --save-db "$p" "$@" "$W" ;;
    esac
}
# is_output MODE FILE: FILE holds what MODE writes (the CSV, the report, an 18-kernel database)
is_output() {
    case $1 in
    export) cmp -s "$TMP/hot.ref" "$2" ;;
    report) cmp -s "$TMP/report.ref" "$2" ;;
    db) [ "$(kernels "$2" 2>/dev/null)" = 18 ] ;;
    esac
}
# no_temp DIR: no temp file of ours left in DIR
no_temp() { ! ls -A "$1" | grep -q 'dcutop-'; }

# ---------------------------------------------------------------- point 9: not regular files
mknod "$O/full" c 1 7
mknod "$O/null" c 1 3
mkfifo "$O/fifo"
ln -s fifo "$O/fifo-link"
for m in export report db; do
    exits "$m into a full device: exit 1" 1 run_out $m "$O/full"
    check "$m into a full device: the message names the path and says ENOSPC" \
        grep -q "$O/full: write error: No space left on device" "$TMP/err"
    check "$m into a full device: still a character device" test -c "$O/full"
    exits "$m into a null device: exit 0 (writing to a device needs no --force)" 0 \
        run_out $m "$O/null"
    check "$m into a null device: still a character device" test -c "$O/null"
    for f in fifo fifo-link; do
        timeout 20 cat "$O/fifo" >"$TMP/fifo.out" &
        reader=$!
        exits "$m into a $f: exit 0" 0 run_out $m "$O/$f"
        wait $reader
        check "$m into a $f: the reader got the whole output" is_output $m "$TMP/fifo.out"
        check "$m into a $f: the FIFO is still a FIFO" test -p "$O/fifo"
    done
    check "$m: no temp file left beside the devices" no_temp "$O"
    check "$m: no temp file left in \$TMPDIR" no_temp "$TMPDIR"
done
check "the link to the FIFO is still a link" test -L "$O/fifo-link"

# an open descriptor by name (/proc/self/fd/1 here; /dev/stdout is the same) is written as
# it is: appended to when the shell appends
echo "first line" >"$TMP/fd.out"
"$D" -q --export hotspots -o /proc/self/fd/1 "$W" >>"$TMP/fd.out"
check "-o /proc/self/fd/1 >>FILE: exit 0" [ $? -eq 0 ]
same "-o /proc/self/fd/1 >>FILE: the first line is kept" "first line" "$(head -1 "$TMP/fd.out")"
check "-o /proc/self/fd/1 >>FILE: the export follows it" \
    sh -c "tail -n +2 '$TMP/fd.out' | cmp -s - '$TMP/hot.ref'"
"$D" -q --save-db /proc/self/fd/1 "$W" >"$TMP/fd.db"
same "--save-db /proc/self/fd/1: a whole database on standard output" 18 "$(kernels "$TMP/fd.db")"

exits "-o '': a usage error" 2 run_out export ""
exits "-o a folder: exit 1" 1 run_out export "$O"
check "-o a folder: the message says so" grep -q "$O: is a folder" "$TMP/err"

# ---------------------------------------------------------------- point 9: symlinks
for m in export report db; do
    S=$TMP/link-$m
    mkdir -p "$S/sub"
    echo old >"$S/target"
    ln -s target "$S/link"
    ln -s link "$S/link2"         # a chain of links
    ln -s ../target "$S/sub/up"   # relative to the link's own folder
    ln -s new "$S/dangling"       # a dangling link creates its target
    exits "$m through a link to an existing file, no --force: exit 2" 2 run_out $m "$S/link"
    same "$m through a link, no --force: the target is kept" old "$(cat "$S/target")"
    for l in link link2 sub/up; do
        echo old >"$S/target"
        exits "$m --force through $l: exit 0" 0 run_out $m "$S/$l" --force
        check "$m --force through $l: still a link" test -L "$S/$l"
        check "$m --force through $l: the target holds the new output" is_output $m "$S/target"
    done
    exits "$m through a dangling link: exit 0 (a new file, no --force)" 0 run_out $m "$S/dangling"
    check "$m through a dangling link: still a link" test -L "$S/dangling"
    check "$m through a dangling link: its target was created" is_output $m "$S/new"
    check "$m through links: no temp file left" no_temp "$S"
done
ln -s loop2 "$TMP/loop1"
ln -s loop1 "$TMP/loop2"
exits "-o a symlink loop: exit 1, no hang" 1 run_out export "$TMP/loop1"
check "-o a symlink loop: the message names the path" grep -q "$TMP/loop1: Too many levels" "$TMP/err"

# ---------------------------------------------------------------- point 10: --force
for m in export report db; do
    F=$TMP/exists-$m
    echo precious >"$F"
    exits "$m over an existing file: exit 2" 2 run_out $m "$F"
    check "$m over an existing file: the message says to use --force" \
        grep -q "$F: file exists.*use --force" "$TMP/err"
    same "$m over an existing file: the file is kept" precious "$(cat "$F")"
    ln "$F" "$F.hardlink" # the old inode: replaced files are renamed over, not rewritten
    exits "$m --force over an existing file: exit 0" 0 run_out $m "$F" --force
    check "$m --force: the file holds the new output" is_output $m "$F"
    same "$m --force: written to a new file renamed into place (old inode untouched)" \
        precious "$(cat "$F.hardlink")"
    check "$m --force: no temp file left" no_temp "$TMP"
done
exits "--report --save-db, both existing, no --force: exit 2" 2 \
    "$D" -q --report -o "$TMP/exists-report" --save-db "$TMP/exists-db" "$W"

# ---------------------------------------------------------------- point 10: modes and owner
for m in export report db; do
    for u in 022 077; do
        rm -f "$TMP/mode-$m"
        (umask $u && run_out $m "$TMP/mode-$m")
        want=$(printf '%o' $((0666 & ~0$u)))
        same "$m, umask $u: a new file has mode $want" "$want" "$(stat -c %a "$TMP/mode-$m")"
    done
    echo old >"$TMP/keep-$m"
    chmod 0640 "$TMP/keep-$m"
    (umask 022 && run_out $m "$TMP/keep-$m" --force)
    check "$m --force over a 0640 file: replaced" is_output $m "$TMP/keep-$m"
    same "$m --force over a 0640 file: still 0640" 640 "$(stat -c %a "$TMP/keep-$m")"
    if [ "$(id -u)" = 0 ]; then
        echo old >"$TMP/keep-$m"
        chown 1234:5678 "$TMP/keep-$m"
        run_out $m "$TMP/keep-$m" --force
        check "$m --force as root over another user's file: replaced" is_output $m "$TMP/keep-$m"
        same "$m --force as root: the owner and group are kept" "1234:5678" \
            "$(stat -c %u:%g "$TMP/keep-$m")"
    fi
done

# ---------------------------------------------------------------- point 10: stale temp files
# files named like dcutop's temp files, not made by this run: never removed
echo "someone else's" >"$TMP/s.db.tmp-dcutop"   # the old fixed --save-db temp name
echo "someone else's" >"$TMP/.s.db.dcutop-AAAAAA"
echo "someone else's" >"$TMP/.s.csv.dcutop-AAAAAA"
run_out db "$TMP/s.db"
run_out export "$TMP/s.csv"
for f in s.db.tmp-dcutop .s.db.dcutop-AAAAAA .s.csv.dcutop-AAAAAA; do
    same "a stale $f survives" "someone else's" "$(cat "$TMP/$f")"
done
check "the database was still written" is_output db "$TMP/s.db"
exits "a failed write (full device) keeps them too" 1 run_out db "$O/full"
same "a stale temp file survives a failed write" "someone else's" "$(cat "$TMP/s.db.tmp-dcutop")"

# ---------------------------------------------------------------- the interactive e
# writing to a FIFO is not overwriting: no question; a yes keeps the file's mode
timeout 20 cat "$O/fifo" >"$TMP/fifo.out" &
reader=$!
printf '2\ne<C-u>%s<Enter>\n:dump fifo\n' "$O/fifo" >"$TMP/fifo.keys"
"$D" --headless --size 100x30 --keys "$TMP/fifo.keys" "$W" >"$TMP/tui.out" 2>&1
wait $reader
check "e into a FIFO: exported without asking" grep -q "Exported 18 rows to $O/fifo" "$TMP/tui.out"
check "e into a FIFO: the reader got the CSV" cmp -s "$TMP/hot.ref" "$TMP/fifo.out"
check "e into a FIFO: still a FIFO" test -p "$O/fifo"
echo old >"$TMP/tui.csv"
chmod 0640 "$TMP/tui.csv"
printf '2\ne<C-u>%s<Enter>y\n:dump yes\n' "$TMP/tui.csv" >"$TMP/yes.keys"
"$D" --headless --size 100x30 --keys "$TMP/yes.keys" "$W" >"$TMP/tui.out" 2>&1
check "e over a file, y: exported" cmp -s "$TMP/hot.ref" "$TMP/tui.csv"
same "e over a 0640 file, y: still 0640" 640 "$(stat -c %a "$TMP/tui.csv")"
printf '2\ne<C-u>%s<Enter>\n:dump full\n' "$O/full" >"$TMP/full.keys"
"$D" --headless --size 100x30 --keys "$TMP/full.keys" "$W" >"$TMP/tui.out" 2>&1
check "e into a full device: the status line names the path and ENOSPC" \
    grep -q "Export failed: $O/full: write error: No space left" "$TMP/tui.out"
check "e into a full device: still a character device" test -c "$O/full"
