-- Tests for lib/shell.lua, the shell tokenizer the shell policies share.
-- Run them with: luahook test ./hooks.d (or luahook test hooks.d/lib-shell_test.lua)

local shell = require("shell")

-- run parses a line and returns its commands as strings "name arg arg"
-- (unknown parts as "?", the home folder as "~"), with the wrappers in
-- brackets, and the parse error.
local function run(line)
  local cmds, err = shell.parse(line)
  local out = {}
  for _, c in ipairs(cmds) do
    local parts = { c.name or "?" }
    for _, a in ipairs(c.args) do parts[#parts + 1] = (a.text:gsub("%z", "?")) end
    local s = table.concat(parts, " ")
    if #c.wrappers > 0 then s = "[" .. table.concat(c.wrappers, " ") .. "] " .. s end
    out[#out + 1] = s
  end
  return table.concat(out, " ; "), err
end

local cases = {
  -- quoting and escapes
  { "quote removal", [[r""m -rf '/' "x y"]], "rm -rf / x y" },
  { "backslash escapes", [[r\m \-rf \/]], "rm -rf /" },
  { "double-quote escapes", [["a\"b" "c\\d" "e\$f" "g\h"]], [[a"b c\d e$f g\h]], first = true },
  { "ANSI-C hex, octal, unicode", [[$'\x72m' $'\162\155' $'\u0072m' $'a\tb']], "rm rm rm a\tb", first = true },
  { "ANSI-C \\0 ends the value", [[echo $'ab\0cd']], "echo ab" },
  { "line continuation", "rm \\\n-rf /", "rm -rf /" },
  { "comments", "ls # rm -rf /", "ls" },
  { "adjacent quoting", [[echo '.e'"n"v]], "echo .env" },
  -- program paths and wrappers
  { "program path dropped", "/usr/bin/RM -r x", "rm -r x" },
  { "sudo with options", "sudo -E -u root rm x", "[sudo] rm x" },
  { "env with assignments", "env -i A=1 B=2 rm x", "[env] rm x" },
  { "stacked wrappers", "timeout 5 nice -n 3 nohup stdbuf -o0 rm x", "[timeout nice nohup stdbuf] rm x" },
  { "command -v runs nothing", "command -v rm", "command -v rm" },
  { "sudo -e edits", "sudo -e /etc/hosts", "sudo -e /etc/hosts" },
  { "xargs appends the echoed items", "echo a b | xargs rm -rf", "echo a b ; [xargs] rm -rf a b" },
  { "xargs of an unknown stream", "find . | xargs rm", "find . ; [xargs] rm ?" },
  { "env -S splits its string", "env -S 'rm -rf x'", "env -S rm -rf x ; [env] rm -rf x" },
  -- env -S: the split string goes before the words after it, and env reads them all
  { "env -S string then the command", "env -S 'PATH=/usr/bin' git reset --hard",
    "env -S PATH=/usr/bin git reset --hard ; [env] git reset --hard" },
  { "env -S attached", "env -SPATH=/usr/bin -- rm -rf x", "env -SPATH=/usr/bin -- rm -rf x ; [env] rm -rf x" },
  { "env - is env -i", "env - git reset --hard", "[env] git reset --hard" },
  -- Windows program words: the folders (/ or \) and .exe dropped
  { "program.exe", [[\git.exe reset; C:/Git/bin/GIT.EXE reset; "C:\Program Files\Git\bin\git.exe" reset]],
    "git reset ; git reset ; git reset" },
  { "interpreter.exe", [[python3.11.exe -c 'import os; os.system("rm x")']],
    [[python3.11 -c import os; os.system("rm x") ; rm x]] },
  { "wrapper.exe", [[sudo.exe rm.exe -rf x]], "[sudo] rm -rf x" },
  { "a name that only ends in exe", "exe x; .exe y", "exe x ; .exe y" },
  -- xargs's delimiters and quotes, BSD xargs -J
  { "xargs -0 keeps one item", [[printf 'rm -rf x' | xargs -0 sh -c]],
    "printf rm -rf x ; [xargs] sh -c rm -rf x ; rm -rf x" },
  { "xargs -d", [[printf 'a b,c' | xargs -d , rm]], "printf a b,c ; [xargs] rm a b c" },
  { "xargs reads quotes", [[echo "'rm -rf x' y" | xargs sh -c]],
    "echo 'rm -rf x' y ; [xargs] sh -c rm -rf x y ; rm -rf x" },
  { "xargs -J", "echo x | xargs -J % rm -rf %", "echo x ; [xargs] rm -rf x" },
  -- parallel: the words joined, and quoted (-q); ::: with no item; sem
  { "parallel reads its words joined and quoted", [[parallel sh -c 'rm -rf {}' ::: x]],
    [[parallel sh -c rm -rf {} ::: x ; sh -c rm -rf x ; rm ; sh -c rm -rf x ; rm -rf x]] },
  { "parallel ::: with no item", "parallel rm -rf :::", "parallel rm -rf ::: ; rm -rf ?" },
  { "sem runs its command once", "sem -j2 rm -rf x", "sem -j2 rm -rf x ; rm -rf x" },
  -- ssh: the remote command, its words joined
  { "ssh remote command", [[ssh -i k.pem -p 22 user@host 'rm -rf x' y]],
    "ssh -i k.pem -p 22 user@host rm -rf x y ; rm -rf x y" },
  { "ssh with no remote command", "ssh -N -L 8080:localhost:80 host", "ssh -N -L 8080:localhost:80 host" },
  -- xargs whose program is a wrapper: the items are the wrapped command's words
  { "xargs sudo runs the first item", "echo rm -rf / | xargs sudo", "echo rm -rf / ; [xargs sudo] rm -rf /" },
  { "xargs timeout skips the duration item", "echo 600 terraform destroy | xargs timeout",
    "echo 600 terraform destroy ; [xargs timeout] terraform destroy" },
  { "xargs env skips assignment items", "echo A=1 aws s3 rm s3://b | xargs env",
    "echo A=1 aws s3 rm s3://b ; [xargs env] aws s3 rm s3://b" },
  { "xargs sudo with no more item", "echo su | xargs sudo", "echo su ; [xargs sudo] su" },
  { "xargs busybox", "echo rm -rf / | xargs -r busybox", "echo rm -rf / ; [xargs busybox] rm -rf /" },
  { "xargs sudo of unknown items", "cat f | xargs sudo", "cat f ; [xargs] sudo ?" },
  { "xargs sudo with its own program", "echo a | xargs sudo rm", "echo a ; [xargs sudo] rm a" },
  -- the program word in path form is read as the kernel reads it
  { "program path cleaned", "/usr/bin/../bin/RM x; //bin//rm y; /./sbin/./reboot", "rm x ; rm y ; reboot" },
  -- chains and nesting
  { "separators", "a; b && c || d | e & f", "a ; b ; c ; d ; e ; f" },
  { "command substitution first", "echo $(rm x) `rm y`", "rm x ; rm y ; echo ? ?" },
  { "process substitution", "diff <(ls a) >(cat)", "ls a ; cat ; diff ? ?" },
  { "subshell and group", "(cd x; rm a) && { rm b; }", "cd x ; rm a ; rm b" },
  { "bash -c", "bash -c 'rm -rf x'", "bash -c rm -rf x ; rm -rf x" },
  -- options after -c are still options: the script is the first operand
  { "bash -c -- and -c -e", "sh -c -- 'rm x'; bash -c -e -o pipefail 'rm y'",
    "sh -c -- rm x ; rm x ; bash -c -e -o pipefail rm y ; rm y" },
  { "sh -lc with positional arguments", [[sh -lc 'rm "$1"' _ y]], "sh -lc rm \"$1\" _ y ; rm y" },
  { "eval", [[eval "rm" x]], "eval rm x ; rm x" },
  -- a line of plain words, read without the lexer, still parses nested strings
  { "eval of plain words", "eval rm -rf x", "eval rm -rf x ; rm -rf x" },
  { "watch of plain words", "watch rm x", "[watch] rm x ; rm x" },
  -- programs that run another program: their options, --, what they skip
  { "runners as wrappers", "chronic faketime -f +2d gosu app setpriv --reuid=1 tini -p 9 -- rm x",
    "[chronic faketime gosu setpriv tini] rm x" },
  -- the ones a pack reads by name stay the command, and what they run follows
  { "systemd-run's valued options", "systemd-run --user -p MemoryMax=1G --unit x rm y",
    "systemd-run --user -p MemoryMax=1G --unit x rm y ; [systemd-run] rm y" },
  { "bwrap's two-valued options", "bwrap --ro-bind /usr /usr --dev /dev --chdir / rm x",
    "bwrap --ro-bind /usr /usr --dev /dev --chdir / rm x ; [bwrap] rm x" },
  { "unshare and rlwrap", "unshare -r -S 0 rlwrap -H h rm x",
    "unshare -r -S 0 rlwrap -H h rm x ; [unshare] rlwrap -H h rm x ; [unshare rlwrap] rm x" },
  -- a runner with a subcommand stays the command, and what it runs follows
  { "uv run", "uv run --with requests pytest -x", "uv run --with requests pytest -x ; [uv] pytest -x" },
  { "uv's other subcommands run nothing", "uv pip install x; npm test; nix build .#x; gdb ./prog; script out",
    "uv pip install x ; npm test ; nix build .#x ; gdb ./prog ; script out" },
  { "a runner behind sudo", "sudo pnpm exec rm x", "[sudo] pnpm exec rm x ; [sudo pnpm] rm x" },
  { "the operands a runner skips", "aws-vault exec prof --duration=1h rm x; direnv exec . rm y",
    "aws-vault exec prof --duration=1h rm x ; [aws-vault] rm x ; direnv exec . rm y ; [direnv] rm y" },
  { "runners whose operands are not the command", "chamber exec a b -- rm x; mise x node@20 -- rm y; mise x node@20",
    "chamber exec a b -- rm x ; [chamber] rm x ; mise x node@20 -- rm y ; [mise] rm y ; mise x node@20" },
  { "a command after an option", "nix develop .#dev -c rm x; gdb -q --args ./prog -v",
    "nix develop .#dev -c rm x ; [nix] rm x ; gdb -q --args ./prog -v ; [gdb] prog -v" },
  { "command lines run by a shell", [[hyperfine -w 3 'sleep 1' 'rm x'; script -qc 'rm y' /dev/null]],
    "hyperfine -w 3 sleep 1 rm x ; sleep 1 ; rm x ; script -qc rm y /dev/null ; rm y" },
  { "option values that are command lines", [[doppler run --command 'rm x'; nix-shell -p a --run "rm y"]],
    "doppler run --command rm x ; rm x ; nix-shell -p a --run rm y ; rm y" },
  { "sops exec-env FILE 'cmd'", [[sops exec-env s.yaml 'rm x']], "sops exec-env s.yaml rm x ; rm x" },
  { "pnpm exec -c runs its operands as lines", [[pnpm exec -c 'rm x; ls']], "pnpm exec -c rm x; ls ; rm x ; ls" },
  { "runuser -u and sg", [[runuser -u app -- rm x; runuser app -c 'rm y'; sg docker 'rm z']],
    "runuser -u app -- rm x ; [runuser] rm x ; runuser app -c rm y ; rm y ; sg docker rm z ; rm z" },
  -- a program the reader does not know: its first operand when that is a
  -- guarded program, else what follows its first --, run or exec; once
  { "an unknown program's guarded operand", "tool -v rm -rf x", "tool -v rm -rf x ; [tool] rm -rf x" },
  { "an unknown program's --, run, exec", "tool -- make x; t2 build run ls; t3 exec a rm x",
    "tool -- make x ; [tool] make x ; t2 build run ls ; [t2] ls ; t3 exec a rm x ; [t3] a rm x" },
  { "no fallback for programs the packs know", "docker rm -f w; git rm f; npm rm x; kubectl exec p -- ls; go run . -- rm",
    "docker rm -f w ; git rm f ; npm rm x ; kubectl exec p -- ls ; go run . -- rm" },
  { "no fallback for an operand that is not guarded", "tool build x; grep rm f; echo run rm x",
    "tool build x ; grep rm f ; echo run rm x" },
  { "a guarded operand with no words, a shell with no option", "tool -q sudo; tool2 bash; tool3 bash x; t4 bash -c 'rm x'",
    "tool -q sudo ; tool2 bash ; tool3 bash x ; t4 bash -c rm x ; [t4] bash -c rm x ; rm x" },
  { "text piped into a shell", "echo 'rm x' | sh", "echo rm x ; sh ; rm x" },
  { "here-document into a shell", "bash <<EOF\nrm x\nEOF", "bash ; rm x" },
  { "find -exec", "find . -exec rm {} +", "find . -exec rm {} + ; rm ?" },
  { "reserved words", "if true; then rm x; fi; while false; do rm y; done", "true ; rm x ; false ; rm y" },
  -- expansions
  { "brace lists", "echo a{b,c}d {1..3} {x..z}", "echo abd acd 1 2 3 x y z" },
  { "nested braces", "echo {a,b{c,d}}", "echo a bc bd" },
  { "quoted braces stay", "echo '{a,b}' x{y}", "echo {a,b} x{y}" },
  { "variable set on the line", "RM=rm; $RM -rf x", "rm -rf x" },
  { "every value a variable was given", "X=a; X=b; echo $X", "echo a b" },
  { "field splitting", [[F='-r -f'; rm $F x]], "rm -r -f x" },
  { "no splitting in quotes", [[F='a b'; echo "$F"]], "echo a b" },
  { "default values", [[echo ${U:-d} ${HOME:?}]], "echo ? d ~" },
  { "home", [[echo ~ ~/x "$HOME" ${HOME}/y]], "echo ~ ~/x ~ ~/y" },
  { "unknown variable", "echo $NOPE", "echo ?" },
  { "known command substitution", "echo $(echo .env)", "echo .env ; echo .env" },
  { "unknown command substitution", "echo $(echo x | base64 -d)", "echo x ; base64 -d ; echo ?" },
  { "for loop values", "for f in a b; do rm $f; done", "rm a b" },
  { "array values", "a=(x y); rm ${a[@]}", "rm x y" },
  { "arithmetic", "echo $((1 + $(rm z)))", "rm z ; echo ?" },
  { "globs kept", "ls *.go ?.c [ab]*", "ls *.go ?.c [ab]*" },
  { "redirections apart", "cat <a >b 2>&1 >>c", "cat" },
  -- the working folder and the home folder, as the shell spells them
  { "working folder", [[echo $PWD ${PWD} "$PWD"/.. $(pwd)/x `pwd` ~+ ~+/y]], "pwd ; pwd ; echo . . ./.. ./x . . ./y" },
  { "previous folder", [[echo $OLDPWD ~-]], "echo ? ?" },
  { "home with operators", [[echo ${HOME%/} ${HOME,,} ${HOME^^} ${HOME:-x} ${HOME%/*} ${HOME#/}]], "echo ~ ~ ~ ~ ~/.. ?" },
  { "the folder above", [[echo ${PWD%/*} "${PWD%%/*}"]], "echo ./.. ?" },
  { "case changes of a known value", [[X=aBc; echo ${X^^} ${X,,} ${X^} ${X,}]], "echo ABC abc ABc aBc" },
  { "paths with spaces", [[rm -rf "My Documents" My\ Documents ~/'a b']], "rm -rf My Documents My Documents ~/a b" },
  -- xargs and parallel
  { "xargs -I puts each line in place", "printf '/\n~\n' | xargs -I % rm -rf %", "printf /\n~\n ; [xargs] rm -rf / ; [xargs] rm -rf ~" },
  { "xargs -I {} apart", "echo a | xargs -I {} rm -rf /tmp/{}", "echo a ; [xargs] rm -rf /tmp/a" },
  { "xargs -i", "xargs -i rm -rf {}", "[xargs] rm -rf ?" },
  { "xargs --replace with no value", "echo x | xargs --replace rm {}", "echo x ; [xargs] rm x" },
  { "xargs options with values", "xargs -n1 -P 4 -L1 -0 -d , --max-procs=2 rm", "[xargs] rm ?" },
  { "xargs -a reads a file, not the pipe", "echo a | xargs -a f rm", "echo a ; [xargs] rm ?" },
  { "parallel ::: items", "parallel -j4 rm -rf {} ::: / b", "parallel -j4 rm -rf {} ::: / b ; rm -rf / ; rm -rf b" },
  { "parallel appends the item", "parallel --jobs 2 rm ::: a", "parallel --jobs 2 rm ::: a ; rm a" },
  { "parallel of piped items", "echo a | parallel 'rm -rf {.}'", "echo a ; parallel rm -rf {.} ; rm -rf a" },
  { "parallel of unknown items", "ls | parallel rm", "ls ; parallel rm ; rm ?" },
  { "parallel of command lines", [[parallel ::: "rm x" ls]], "parallel ::: rm x ls ; rm x ; ls" },
  -- find actions and here-strings into a shell
  { "find -execdir sh -c", [[find . -execdir sh -c 'rm "$1"' _ {} \;]], "find . -execdir sh -c rm \"$1\" _ {} ; ; sh -c rm \"$1\" _ ? ; rm ?" },
  { "find -ok", [[find . -ok rm {} \;]], "find . -ok rm {} ; ; rm ?" },
  { "here-string into a shell", [[sh <<< "rm x"]], "sh ; rm x" },
  { "/dev/stdin as the script", [[source /dev/stdin <<< "rm x"; bash /dev/fd/0 <<< 'rm y']], "source /dev/stdin ; rm x ; bash /dev/fd/0 ; rm y" },
  { "env --split-string", [[env --split-string='rm x']], "env --split-string=rm x ; [env] rm x" },
  -- decoded scripts
  { "printf escapes into a shell", [[printf '\x72\x6d x' | sh]], [[printf \x72\x6d x ; sh ; rm x]] },
  { "printf octal and %s", [[printf '\162%s %s\n' m x | sh]], [[printf \162%s %s\n m x ; sh ; rm x]] },
  { "echo -e escapes", [[echo -e '\x72m x' | bash]], [[echo -e \x72m x ; bash ; rm x]] },
  { "echo without -e keeps them", [[echo '\x72m x' | bash]], [[echo \x72m x ; bash ; x72m x]] },
  { "base64 -d", "echo cm0geA== | base64 -d | sh", "echo cm0geA== ; base64 -d ; sh ; rm x" },
  { "base64 --decode of a here-string", "base64 --decode <<< cm0geA== | sh", "base64 --decode ; sh ; rm x" },
  { "base64 -D in $(…)", [[sh -c "$(echo cm0geA== | base64 -D)"]], "echo cm0geA== ; base64 -D ; sh -c rm x ; rm x" },
  { "xxd -r -p", "echo 726d2078 | xxd -r -p | sh", "echo 726d2078 ; xxd -r -p ; sh ; rm x" },
  { "rev", "echo 'x mr' | rev | sh", "echo x mr ; rev ; sh ; rm x" },
  -- a wrapper before the printer leaves its output as it is
  { "sudo printf into a shell", [[sudo printf '\x72\x6d x' | sh]], [[[sudo] printf \x72\x6d x ; sh ; rm x]] },
  { "sudo echo through base64 -d", "sudo echo cm0geA== | base64 -d | bash", "[sudo] echo cm0geA== ; base64 -d ; bash ; rm x" },
  { "env, nice, timeout and command before echo", "env A=1 nice -n 2 timeout 5 command echo rm x | sh",
    "[env nice timeout command] echo rm x ; sh ; rm x" },
  { "xargs echo into a shell is not known", "echo rm x | xargs echo | sh", "echo rm x ; [xargs] echo rm x ; sh" },
  -- interpreters' one-liners
  { "python os.system", [[python3 -c 'import os; os.system("rm -rf x")']], "python3 -c import os; os.system(\"rm -rf x\") ; rm -rf x" },
  { "python subprocess list", [[python -c "import subprocess; subprocess.run(['rm', '-rf', 'x'], check=True)"]], "python -c import subprocess; subprocess.run(['rm', '-rf', 'x'], check=True) ; rm -rf x" },
  { "python shutil.rmtree", [[python -c 'import shutil; shutil.rmtree("x")']], "python -c import shutil; shutil.rmtree(\"x\") ; rm -r -f x" },
  { "python open to read and write", [[python -c 'open(".env").read(); open("y", "w")']], "python -c open(\".env\").read(); open(\"y\", \"w\") ; cat .env ; tee y" },
  { "python from a here-document", "python3 - <<'EOF'\nimport os\nos.remove('x')\nEOF", "python3 - ; rm -f x" },
  { "node execSync", [[node -e 'require("child_process").execSync("rm -rf x")']], "node -e require(\"child_process\").execSync(\"rm -rf x\") ; rm -rf x" },
  { "node fs.rmSync recursive", [[node -e 'fs.rmSync("x", {recursive: true})']], "node -e fs.rmSync(\"x\", {recursive: true}) ; rm -r -f x" },
  { "node -r before -e", [[node -r ts-node/register -e 'fs.unlinkSync("x")']], "node -r ts-node/register -e fs.unlinkSync(\"x\") ; rm -f x" },
  { "ruby backquotes and %x", [[ruby -e '`rm a`; %x(rm b)']], "ruby -e `rm a`; %x(rm b) ; rm a ; rm b" },
  { "ruby -r before -e", [[ruby -rfileutils -e 'FileUtils.rm_rf("x")']], "ruby -rfileutils -e FileUtils.rm_rf(\"x\") ; rm -r -f x" },
  { "ruby and perl deletes without parentheses", [[ruby -e 'FileUtils.rm_r "x"'; perl -e 'rmtree "y"; unlink "z"']],
    [[ruby -e FileUtils.rm_r "x" ; rm -r -f x ; perl -e rmtree "y"; unlink "z" ; rm -r -f y ; rm -f z]] },
  { "ruby remove_entry_secure", [[ruby -e 'FileUtils.remove_entry_secure("x")']],
    [[ruby -e FileUtils.remove_entry_secure("x") ; rm -r -f x]] },
  { "perl system list and qx", [[perl -e 'system "rm", "a"; qx(rm b)']], "perl -e system \"rm\", \"a\"; qx(rm b) ; rm b ; rm a" },
  { "php shell_exec", [[php -r 'shell_exec("rm x");']], "php -r shell_exec(\"rm x\"); ; rm x" },
  { "deno eval", [[deno eval 'new Deno.Command("rm", {args: ["x"]})']], "deno eval new Deno.Command(\"rm\", {args: [\"x\"]}) ; rm x" },
  { "awk system, getline and print |", [[awk 'BEGIN { system("rm a"); "rm b" | getline; print "rm c" | "sh" }']], "awk BEGIN { system(\"rm a\"); \"rm b\" | getline; print \"rm c\" | \"sh\" } ; rm a ; rm b ; sh ; rm c" },
  { "an everyday one-liner runs nothing", [[python -c 'print(1)'; node -e 'console.log(1)'; awk '{print $1}' f]], "python -c print(1) ; node -e console.log(1) ; awk {print $1} f" },
  -- osascript: AppleScript's do shell script and JavaScript's doShellScript
  { "osascript do shell script", [[osascript -e 'do shell script "rm -rf x"']],
    [[osascript -e do shell script "rm -rf x" ; rm -rf x]] },
  { "osascript, its words in any case and in parentheses", [[osascript -e 'Do Shell Script ("rm a")']],
    [[osascript -e Do Shell Script ("rm a") ; rm a]] },
  { "osascript -e lines are one script", [[osascript -e 'set x to 1' -e 'do shell script "rm a"' -e 'beep']],
    [[osascript -e set x to 1 -e do shell script "rm a" -e beep ; rm a]] },
  { "osascript JavaScript doShellScript", [[osascript -l JavaScript -e 'app.doShellScript("rm b")']],
    [[osascript -l JavaScript -e app.doShellScript("rm b") ; rm b]] },
  { "osascript from a here-document", "osascript <<EOF\ndo shell script \"rm c\"\nEOF", "osascript ; rm c" },
  { "osascript with administrator privileges runs as root",
    [[osascript -e 'do shell script "rm d" with administrator privileges']],
    [[osascript -e do shell script "rm d" with administrator privileges ; [sudo] sh -c rm d ; rm d]] },
  { "osascript JavaScript administratorPrivileges runs as root",
    [[osascript -l JavaScript -e 'app.doShellScript("rm e", {administratorPrivileges: true})']],
    [[osascript -l JavaScript -e app.doShellScript("rm e", {administratorPrivileges: true}) ; [sudo] sh -c rm e ; rm e]] },
  { "everyday osascript runs nothing", [[osascript -e 'display notification "done"'; osascript -e 'get volume settings']],
    [[osascript -e display notification "done" ; osascript -e get volume settings]] },
}

for _, c in ipairs(cases) do
  test(c[1], function()
    local got, err = run(c[2])
    expect.eq(err, nil)
    expect.eq(got, c[3])
  end)
end

-- dir: the folder a command runs in after a cd (or env -C, sudo -D), as
-- a path from the payload's cwd, "~/…", or "\0" when it is not known.
test("commands after a cd know the folder they run in", function()
  local function dirs(line)
    local out = {}
    for _, c in ipairs(shell.parse(line)) do out[#out + 1] = c.name .. "@" .. (c.dir or "-"):gsub("%z", "?") end
    return table.concat(out, " ")
  end
  expect.eq(dirs("ls; cd .. && rm -rf build"), "ls@- cd@- rm@..")
  expect.eq(dirs("cd src && cd ../lib; rm x"), "cd@- cd@src rm@lib")
  expect.eq(dirs("builtin cd /tmp; rm x"), "cd@- rm@/tmp")
  expect.eq(dirs("cd; rm x; cd -; rm y"), "cd@- rm@~ cd@~ rm@?")
  expect.eq(dirs("pushd /x && popd && rm y"), "pushd@- popd@/x rm@?")
  expect.eq(dirs([[cd "$X" && rm y]]), "cd@- rm@?")
  expect.eq(dirs([[cd /a && cd "$PWD/b" && rm y]]), "cd@- cd@/a rm@./b")
  expect.eq(dirs("( cd ..; rm a ); rm b"), "cd@- rm@.. rm@..")
  expect.eq(dirs("env -C /opt rm x; rm y"), "rm@/opt rm@-")
  expect.eq(dirs("sudo -D /opt sh -c 'rm x'; rm y"), "sh@/opt rm@/opt rm@-")
  expect.eq(dirs("sh -c 'cd /a; rm x'; rm y"), "sh@- cd@- rm@/a rm@-")
  expect.eq(dirs("ssh host 'rm -rf x'"), "ssh@- rm@~")
  expect.eq(dirs("cd .. && parallel rm ::: a"), "cd@- parallel@.. rm@..")
end)

-- find_own leaves out the words of find's -exec actions, which are the
-- command they run (parse gives it), not find's own.
test("find_own: find's words without its -exec actions", function()
  local function own(line)
    local c = shell.parse(line)[1]
    local out = {}
    for _, a in ipairs(shell.find_own(c).args) do out[#out + 1] = a.text end
    return table.concat(out, " ")
  end
  expect.eq(own([[find . -exec echo -delete \; -print]]), ". -print")
  expect.eq(own([[find . -name x -execdir rm {} + -delete]]), ". -name x -delete")
  expect.eq(own([[find / -delete]]), "/ -delete")
  expect.eq(own([[ls -delete]]), "-delete")
end)

-- Unicode dashes are not folded: a program receives U+2010 as it is and
-- no program reads it as an option's dash (git reset ‐‐hard asks git for
-- a revision named ‐‐hard, and fails).
test("unicode dashes stay what they are", function()
  local c = shell.parse("git reset \226\128\144\226\128\144hard")[1]
  expect.eq(c.args[2].text, "\226\128\144\226\128\144hard")
end)

test("words carry home, glob and unknown marks", function()
  local cmds = shell.parse([[rm -rf "$HOME"/* $X '*' $(ls)]])
  local a = cmds[#cmds].args
  expect.truthy(a[2].home and a[2].glob, "~/* is home and a glob")
  expect.truthy(a[3].whole and a[3].source == "var", "$X is all unknown, from a variable")
  expect.truthy(not a[4].glob, "a quoted * is no glob")
  expect.truthy(a[5].whole and a[5].source == "subst", "$(ls) is computed")
end)

test("words carry the working folder marks", function()
  local a = shell.parse([[rm -rf "$PWD" $(pwd)/.. $OLDPWD x/$PWD]])[2].args
  expect.truthy(a[2].cwd and a[2].text == "." and not a[2].unknown, "$PWD is the working folder, spelled .")
  expect.truthy(a[3].cwd and a[3].text == "./..", "$(pwd)/.. starts with the working folder")
  expect.truthy(a[4].dir and a[4].whole, "$OLDPWD is an unknown folder")
  expect.truthy(not a[5].cwd, "only a word that starts with $PWD is marked")
  a = shell.parse([[rm -rf "$(echo ~)" $(echo $HOME)/x]])
  expect.truthy(a[3].args[2].home and a[3].args[3].home, "$(echo ~) is the home folder")
end)

-- lead: a variable the line does not set that starts a word, which an
-- unset or empty value turns into the path after it ($X/junk is /junk).
test("words led by a variable the line does not set carry its name", function()
  local a = shell.parse([[rm -rf $X/a "${Y}"/b "$Z/"* ${V%/}/c ${W:?}/d ${U:?msg}/e ${T?}/f ${S:-x}/g $$/h $HOME/i]])[1].args
  expect.eq(a[2].lead, "X")
  expect.eq(a[3].lead, "Y")
  expect.eq(a[4].lead, "Z")
  expect.eq(a[5].lead, "V")
  for k = 6, 11 do expect.truthy(a[k].lead == nil, a[k].pat .. " has no lead") end
  local cmds = shell.parse([[D=build; rm -rf $D/x a/$X/b]])
  a = cmds[#cmds].args
  expect.truthy(a[2].lead == nil, "a variable the line sets is no lead")
  expect.truthy(a[3].lead == nil, "only the first piece of a word leads it")
end)

test("echo ~ piped to xargs gives the home folder", function()
  local c = shell.parse([[echo ~/x | xargs rm -rf]])[2]
  expect.truthy(c.args[2].home, "~/x is home")
  c = shell.parse([[echo ~ | xargs -I{} rm -rf {}]])[2]
  expect.truthy(c.args[2].home, "~ is home")
end)

-- computed returns the computed reason of each command of a line, by name.
local function computed(line)
  local out = {}
  for _, c in ipairs((shell.parse(line))) do
    if c.computed then out[#out + 1] = (c.name or "?") .. ": " .. c.computed end
  end
  return table.concat(out, " | ")
end

test("scripts computed at run time are marked", function()
  for _, line in ipairs({ [[sh -c "$X"]], [[bash -c "$(cat f)"]], [[eval "$(foo)"]], "eval $X", "source <(foo)",
    ". $F", "bash <(foo)", "bash $S", "cat f | sh", "base64 -d f | bash", "bash <<EOF\n$(cat f)\nEOF",
    [[python -c "$C"]], [[python -c 'import os; os.system(c)']], [[python -c 'os.system("rm " + x)']],
    [[node -e 'execSync(`rm ${x}`)']], [[ruby -e 'system("rm #{x}")']], [[perl -e '`rm $x`']],
    [[awk '{system($0)}']], [[awk "$P"]], [[su -c "$X"]], "cat f | parallel", "cat f | python3",
    [[osascript -e 'do shell script x']], [[osascript -e 'do shell script "rm " & quoted form of f']],
    [[osascript -l JavaScript -e 'app.doShellScript(cmd)']], [[osascript -e 'beep' -e "$X"]],
    [[find . -exec sh {} \;]], "xargs sh -c", [[source /dev/stdin <<< "$(cat f)"]] }) do
    expect.truthy(computed(line) ~= "", line)
  end
  expect.contains(computed([[sh -c "$X"]]), "sh: the code of sh -c is computed when it runs")
  expect.contains(computed("cat f | sh"), "sh runs what cat prints")
  -- a script that is an item xargs or parallel reads, even one the line shows
  expect.contains(computed("echo ok | xargs -I{} bash -c {}"), "bash: the code of bash -c is what xargs reads")
  expect.contains(computed("echo ok | xargs sh -c"), "sh: the code of sh -c is what xargs reads")
  expect.contains(computed("echo ok | parallel bash -c {}"), "parallel: parallel runs each line it reads as the script")
  expect.contains(computed("echo ok | parallel sh -ec -- {.}"), "parallel: parallel runs each line it reads")
end)

test("a script with a variable's value in it is read around the value", function()
  expect.eq((run([[sh -c "cd $D && rm -rf $D/x"]])), "sh -c cd ? && rm -rf ?/x ; cd ? ; rm -rf ?/x")
  local cmds = shell.parse([[eval "rm -rf $D"]])
  expect.truthy(cmds[2].name == "rm" and cmds[2].args[2].whole and cmds[2].args[2].source == "var", "$D stays unknown")
end)

test("scripts written out are not marked", function()
  for _, line in ipairs({ "sh -c 'rm x'", "eval 'rm x'", "source .venv/bin/activate", "bash x.sh", "echo 'ls' | sh",
    "echo bHM= | base64 -d | sh", "bash <<EOF\nls\nEOF", "bash -s < x.sh", [[python -c 'print(1)']],
    [[python -c 'import os; os.system("ls")']], "cat f | python3 -m json.tool", "python3 x.py", "perl -pi -e 's/a/b/' f",
    "awk -f prog.awk f", "parallel gzip ::: a", "xargs rm", "bash", [[sh -c 'echo $1' _ "$X"]],
    [[sh -c "cd $DIR && make"]], [[eval "export PATH=$PATH:/x"]], "bash <<EOF\ncd $D\nEOF",
    [[source "$(pipenv --venv)/bin/activate"]], [[. "$VENV/bin/activate"]], "echo a | xargs -I{} sh -c 'ls {}'",
    "echo a | parallel sh -c 'ls {}'", "parallel bash -c ::: 'make a' 'make b'", "echo ok | xargs bash -c 'ls'" }) do
    expect.eq(computed(line), "", line)
  end
end)

test("decoded and extracted scripts are charged to the budget", function()
  -- a script that decodes to more than the parser reads ends with an error
  local big = string.rep("ls;", 40000)
  local _, err = shell.parse("printf '%s' '" .. big .. "' | sh")
  expect.contains(err, "bytes")
  _, err = shell.parse("python -c '" .. string.rep('os.system("ls");', 4000) .. "'")
  expect.truthy(err ~= nil, "every call found costs a token")
end)

test("output decodes what a pipeline prints", function()
  local cmds = shell.parse([[printf 'aAA%s|%b|%%' x '	' | cat | base64 | cat]])
  expect.eq(shell.output(cmds[1]), "aAAx|	|%")
  expect.eq(shell.output(cmds[2]), "aAAx|	|%")
  expect.eq(shell.output(cmds[3]), nil)
  expect.eq(shell.output(shell.parse([[echo -e 'a\0101\c b']])[1]), "aA")
  expect.eq(shell.output(shell.parse("echo '!!' | base64 -d")[2]), nil)
end)

test("the program word in path form is cleaned", function()
  local cmds = shell.parse("sudo /./etc/init.d/auditd stop; /usr/bin/../bin/rm x; ./bin/../tool; ../x/./y; \"$D\"/./z")
  expect.eq(cmds[1].name, "auditd")
  expect.eq(cmds[1].word.text, "/etc/init.d/auditd")
  expect.eq(cmds[1].word.pat, "/etc/init.d/auditd")
  expect.eq(cmds[2].word.text, "/usr/bin/rm")
  expect.eq(cmds[3].word.text, "./tool")
  expect.eq(cmds[4].word.text, "../x/y")
  expect.truthy(cmds[5].word.unknown, "a word with an unknown part is left as it is")
  expect.eq(cmds[5].name, nil)
end)

test("redirection targets and here-documents", function()
  local cmds = shell.parse("cat > /dev/sda 2>>log <<'EOF'\n$(rm x)\nEOF")
  local c = cmds[1]
  expect.eq(#cmds, 1)
  expect.eq(c.redirs[1].op, ">")
  expect.eq(c.redirs[1].target.text, "/dev/sda")
  expect.eq(c.redirs[2].fd, "2")
  expect.eq(c.redirs[3].target.text, "$(rm x)\n")
end)

test("an unquoted here-document runs its substitutions", function()
  expect.eq((run("cat <<EOF\n$(rm x)\nEOF")), "rm x ; cat")
end)

test("pipelines link upstream", function()
  local cmds = shell.parse("curl x | tee f | bash")
  expect.eq(cmds[3].upstream.name, "tee")
  expect.eq(cmds[3].upstream.upstream.name, "curl")
  expect.truthy(cmds[3].reads_stdin, "bash reads its script from the pipe")
end)

test("function bodies know their function", function()
  local cmds = shell.parse(":(){ :|:& };:")
  expect.eq(cmds[1].func, ":")
  expect.truthy(cmds[2].bg and cmds[2].pipe_in, "the second call is piped and backgrounded")
  expect.eq(cmds[3].func, nil)
end)

test("options: clusters, abbreviations, --, permutation", function()
  local spec = { short = { r = "recursive", f = "force" }, long = { "recursive", "force", "dir" } }
  local o = shell.options(shell.parse("rm x -fr -- -y")[1].args, spec)
  expect.truthy(o.flags.recursive and o.flags.force, "-fr")
  expect.eq(#o.operands, 2)
  o = shell.options(shell.parse("rm --rec --fo x")[1].args, spec)
  expect.truthy(o.flags.recursive and o.flags.force, "--rec --fo")
  o = shell.options(shell.parse("rm $OPTS x")[1].args, spec)
  expect.truthy(o.unknown, "an unknown word may be options")
end)

test("target classes", function()
  local want = { ["/"] = "root", ["/*"] = "root", ["/usr/"] = "root", ["/\\*"] = "root", ["~"] = "home",
    ["~/{*,.*}"] = "home", ["*"] = "cwd", ["../*"] = "cwd", ['"$X"/*'] = "prefix", ["$X"] = "variable",
    ["$(ls)"] = "computed", ["$(pwd)"] = "cwd", ['"$PWD"'] = "cwd", ["$OLDPWD"] = "prefix", ["./build"] = false, ["/tmp/x"] = false, ["~/p/node_modules"] = false,
    ["/../usr"] = "root", ["/../../etc/"] = "root", ["/../tmp/x"] = false }
  for line, class in pairs(want) do
    local args = shell.parse("rm " .. line)
    local w = args[#args].args[1]
    expect.eq(shell.target(w) or false, class)
  end
end)

test("glob helpers", function()
  local rules = shell.glob.rules({ ".env", "*.pem", ".ssh/" })
  local touch = function(p) return shell.glob.could_touch(p, rules) end
  expect.truthy(touch(".en?") and touch(".[e]nv") and touch(".E*") and touch("a/*.P?M") and touch("~/.ssh/x"), "globs that could match")
  expect.truthy(touch("\0") and touch("x/\0"), "unknown parts could be anything")
  expect.truthy(not touch("*") and not touch("*.go") and not touch(".env/bin/activate") and not touch("\0/y"), "globs that cannot")
  expect.truthy(shell.glob.could_match("ma[a-i]n", "main") and not shell.glob.could_match("m?", "main"), "could_match")
end)

test("glob: a line of code read as a word is judged without comparing it item by item", function()
  local rules = shell.glob.rules({ ".env", "*.pem", ".ssh/", "credentials", "id_*", ".netrc" })
  local touch = function(p) return shell.glob.could_touch(p, rules) end
  -- escaped characters of a literal word are its characters
  expect.truthy(touch([[a\\r/.env]]) and not touch([[a\\r/.envy]]), "an escaped backslash")
  -- no file name is longer than 255 bytes, whatever the globs
  expect.truthy(touch(string.rep("a", 200) .. "*.pem") and not touch(string.rep("a", 300) .. "*.pem"), "NAME_MAX")
  -- the ends of an unknown word still count (id_* could end in ")")
  expect.truthy(touch("\0x/.env") and touch("\0x/id_rsa") and touch("\0)"), "unknown words")
  local named = shell.glob.rules({ ".env", "credentials" })
  expect.truthy(not shell.glob.could_touch("\0x/.envy", named) and not shell.glob.could_touch("\0)", named),
    "unknown words that end otherwise")
  -- a php one-liner (a code word of 330 bytes, [ and ] in it): cut to
  -- MAX_ITEMS behind an unknown part, it once filled a table of its length
  -- by every rule's for each rule (a million cells, most of a second)
  local code = [[$p = array(array("pipe","r"),array("pipe","w"));$h = @proc_open("/tmp/x.sh", $p, $pipes);]] ..
    string.rep([[while(!feof($pipes[1])) echo(fread($pipes[1],4096));]], 5)
  shell.glob.cells = 0
  expect.truthy(not touch(code:gsub("[\\*?%[%]]", "\\%0")), "names no secret")
  expect.truthy(shell.glob.cells < 20000, "compared in " .. shell.glob.cells .. " cells, want under 20,000")
end)

test("printable cuts and escapes", function()
  expect.eq(shell.printable("a\27[31mb\n", 80), "a\\x1B[31mb\\x0A")
  expect.eq(shell.printable(string.rep("x", 100), 10), "xxxxxxxxxx…")
end)

test("limits end the parse with an error, never a Lua error", function()
  local _, err = shell.parse(string.rep("a", shell.limits.bytes + 1))
  expect.contains(err, "bytes")
  _, err = shell.parse(string.rep("$(", 100))
  expect.contains(err, "nested")
  _, err = shell.parse(string.rep("x ", shell.limits.tokens + 1))
  expect.contains(err, "tokens")
  _, err = shell.parse(string.rep("x;", shell.limits.commands + 1))
  expect.contains(err, "commands")
  local cmds
  cmds, err = shell.parse("echo " .. string.rep("{a,b}", 30))
  expect.eq(err, nil)
  expect.eq(cmds[1].args[1].source, "overflow")
end)

test("at the limits: allowed", function()
  local _, err = shell.parse(string.rep("x ", shell.limits.tokens - 1))
  expect.eq(err, nil)
  _, err = shell.parse(string.rep("x;", shell.limits.commands))
  expect.eq(err, nil)
  _, err = shell.parse(string.rep("$(", shell.limits.depth) .. "x" .. string.rep(")", shell.limits.depth))
  expect.eq(err, nil)
end)

test("hostile input never raises", function()
  for _, s in ipairs({ "'", '"', "$(", "`", "${", "$'", "<<", "<<EOF", "{", "}", "((", "))", ")", "[", "\\",
    "$((", "${x:-", "a=(", "f() {", "case x in", "for", "\0", "$'\\x", "${!x}", "${#x}", "<(", "2>", "&>" }) do
    local ok = pcall(shell.parse, s)
    expect.truthy(ok, s)
  end
end)

test("hostile scripts in interpreters and decoders never fail the parser", function()
  local pieces = { "os.system(", "subprocess.run([", "execSync(`", "%x(", "qx{", "`", "system ", '"', "'", "(", ")",
    "[", "]", ",", "${", "#{", "$x", "\\", "\\x7", "shutil.rmtree(", "open(", "Deno.Command(", "args: [",
    "| getline", 'print "a" | "', "rm -rf /", " ", "f\"", "expanduser(", "+", ";", "}", "{" }
  local wraps = { "python -c %s", "node -e %s", "ruby -e %s", "perl -e %s", "php -r %s", "awk %s", "deno eval %s",
    "printf %s | sh", "echo %s | base64 -d | sh", "echo -e %s | xxd -r -p | sh", "xargs -I%s rm %s",
    "parallel %s ::: %s" }
  local seed = 4242
  for n = 1, 400 do
    local parts = {}
    for _ = 1, 8 do
      seed = (seed * 16807) % 2147483647
      parts[#parts + 1] = pieces[seed % #pieces + 1]
    end
    local line = wraps[n % #wraps + 1]:gsub("%%s", (shell.quote(table.concat(parts)):gsub("%%", "%%%%")))
    local ok, _, err = pcall(shell.parse, line)
    expect.truthy(ok and not (err or ""):find("failed"), line .. ": " .. tostring(err))
  end
end)

test("quick lets through plain lines that run nothing a rule looks at", function()
  local quick, max, stop = shell.quick({ programs = { { "rm", "mkfs[^ /]*", "log", "test" } },
    words = "(?i)\\.env(?:[/ =:@]|$)" })
  -- the check made from the bound and pattern quick also returns
  local made = function(line) return #line < max and not re.match(stop, line) end
  for _, line in ipairs({ "go test ./... -run TestRunner -count=1", "npm run build", "CGO_ENABLED=0 go build -o bin/x .",
    "ls -la src", "make", "", "git-lfs pull", "envsubst x", "timeouts x",
    -- a policy's program as a first operand that no fallback reads there
    -- (git log, npm test: not shell.args.GUARDED)
    "git log --oneline -5", "npm test", "brew log x" }) do
    expect.truthy(quick(line), line)
    expect.truthy(made(line), line)
  end
  for _, line in ipairs({ "rm -rf /", "RM x", "/bin/rm x", "./rm x", "x/rm/ y", "FOO=1 rm x", "A=1 B=/bin/rm x",
    "mkfs.ext4 /dev/sda", "sudo ls", "env ls", "time ls", "if ls", "function f", "python3.12 x", "bash",
    ". x", "eval ls", "find . -delete", "cat .env", "cat x=.ENV", "cat $x", "ls; rm x", "ls\trm", "ls 'x'",
    "cat ~/x", "ls *", string.rep("a ", shell.limits.tokens),
    -- what a program the reader does not know may run (its fallback)
    "tool rm -rf x", "tool -v git push", "acme -- log x", "mytool run test x", "tool bash -c x" }) do
    expect.truthy(not quick(line), line)
    expect.truthy(not made(line), line)
  end
end)

test("a word of one literal piece expands as the general path expands it", function()
  -- expand reads a one-piece literal word without fields(); a trailing
  -- empty piece of the same quoting sends the same word through fields()
  local function dump(ws)
    local out = {}
    for _, w in ipairs(ws) do
      local keys = {}
      for k, v in pairs(w) do keys[#keys + 1] = k .. "=" .. tostring(v) end
      table.sort(keys)
      out[#out + 1] = table.concat(keys, ",")
    end
    return table.concat(out, " | ")
  end
  local p = { limits = shell.limits, vars = {} }
  for _, s in ipairs({ "", "src", "./...", "~", "~/x", "~x", "/~/", "a*b", "?", "[ab]", "x]", "a\\b", "a\0b",
    "-rf", "TestX|TestY", "$HOME", "{a,b}", "a b", "~/.ssh/id_*", "\\*" }) do
    for _, q in ipairs({ true, false }) do
      local fast = shell.expand(p, { { k = "lit", s = s, q = q } })
      local general = shell.expand(p, { { k = "lit", s = s, q = q }, { k = "lit", s = "", q = q } })
      expect.eq(dump(fast), dump(general), string.format("%q quoted=%s", s, tostring(q)))
    end
  end
end)

test("a line the shell would refuse to read is named, with where", function()
  for _, c in ipairs({
    { [[echo "a b]], [[a " that is not closed, at byte 6: "a b]] },
    { [[ls 'x]], [[a ' that is not closed, at byte 4: 'x]] },
    { [[echo $'x]], [[a $' that is not closed, at byte 6]] },
    { [[echo $(date]], [[a $( that is not closed, at byte 6]] },
    { [[diff <(ls a]], [[a <( that is not closed, at byte 6]] },
    { [[echo `date]], [[a ` that is not closed, at byte 6]] },
    { [[echo ${X]], [[a ${ that is not closed, at byte 6]] },
    { [[echo $((1]], [[a $(( that is not closed, at byte 6]] },
    { [[(cd x; ls]], [[a ( that is not closed, at byte 1]] },
    { [[ls |]], [[a | with no command after it, at byte 4]] },
    { "a &&\n", [[a && with no command after it, at byte 3]] },
    { [[a ||]], [[a || with no command after it, at byte 3]] },
    { [[make |; true]], [[a | with no command after it, at byte 6]] },
    { [[a && | b]], [[a && with no command after it, at byte 3]] },
    { [[ls | & x]], [[a | with no command after it, at byte 4]] },
    { [[( make | )]], [[a | with no command after it, at byte 8]] },
    { [[echo $(ls &&)]], [[a && with no command after it, at byte 11]] },
    { [['rm -rf ~]], [[a ' that is not closed, at byte 1: 'rm -rf ~]] },
    -- in a script the line hands to a shell, whose shell refuses it
    { [[bash -c "'rm -rf ~"]], [[a ' that is not closed, at byte 1 of the script bash -c runs: 'rm -rf ~]] },
    { [[sh -c 'echo "x']], [[a " that is not closed, at byte 6 of the script sh -c runs: "x]] },
    { [[eval "ls 'x"]], [[a ' that is not closed, at byte 4 of the script eval runs: 'x]] },
    { [[echo `echo 'x`]], [[a ' that is not closed, at byte 6 of the script `…` runs: 'x]] },
    { "bash <<EOF\necho 'x\nEOF", [[a ' that is not closed, at byte 6 of the script bash << runs: 'x]] },
    { [[echo "echo \"x" | sh]], [[a " that is not closed, at byte 6 of the script | sh runs: "x]] },
    { [[sh -c 'make &&']], [[a && with no command after it, at byte 6 of the script sh -c runs]] },
    { [[ssh host "ls 'x"]], [[a ' that is not closed, at byte 4 of the script ssh runs: 'x]] },
    { [[python3 -c 'import os; os.system("ls \"x")']], [[a " that is not closed, at byte 4 of the script python3 -c runs]] },
    { [[osascript -e 'do shell script "ls $(x"']], [[a $( that is not closed, at byte 4 of the script osascript -e runs]] },
  }) do
    local cmds, err, bad = shell.parse(c[1])
    expect.eq(err, nil, c[1])
    expect.eq(bad and bad:sub(1, #c[2]), c[2], c[1])
    expect.truthy(#cmds > 0, c[1])
  end
  -- what the reader made of it is still there: the quote runs to the end
  expect.eq(run([[rm -rf / 'x]]), "rm -rf / x")
end)

test("lines the shell reads are not named unreadable", function()
  for _, line in ipairs({ [[echo "it's"]], [[echo $'it\'s']], [[echo "$(echo "$(date)")"]], "ls # it's",
    [[echo $(( (1+2) * 3 ))]], [[echo ${X:-"d"} ${#X}]], "a &&\nb", "a |\nb", "a ||\n\nb", [[echo \"x \']],
    "a && b; c || d & e | f", "a |& b",
    "cat <<'EOF'\nit's\nEOF", [[x=$(case $y in a) echo 1;; esac)]], [[f() { ls; }; f]], "ls &",
    [[echo `echo \`date\``]], "plain words only", [[sh -c "echo \"it's\""]], [[bash -c 'ls # don'"'"'t']],
    "cat <<EOF\nit's a $(date) \"x\nEOF", "bash <<'EOF'\necho \"it's\"\nEOF", [[echo it\'s]],
    -- a here-document with no end line: bash and dash read it to the end of the line and run it
    "cat <<EOF\nit's", "cat <<EOF",
    -- the texts of parallel and alias are the reader's joins, not scripts
    [[parallel echo "it's" ::: a]], [[alias q="echo 'x"]],
    [[python3 -c "print(\"it's\")"]], [[osascript -e 'display dialog "it'"'"'s done"']] }) do
    local _, err, bad = shell.parse(line)
    expect.eq(err, nil, line)
    expect.eq(bad, nil, line)
  end
end)

-- paths.resolve in a Windows folder (pwsh.cwd's form, /c:/…): a POSIX
-- line there is Git Bash's, whose /c/x, C:/x and C:\x are drive C's x;
-- names are matched in lower case. Elsewhere /c/x is the folder /c/x.
test("paths.resolve reads Git Bash's drive paths in a Windows folder", function()
  local paths = require("paths")
  local cwd = "/c:/users/dev/project"
  expect.eq(paths.resolve("/c/Users/Dev/other", cwd), "/c:/users/dev/other")
  expect.eq(paths.resolve("C:/Users/dev/project/src", cwd), "/c:/users/dev/project/src")
  expect.eq(paths.resolve("D:\\Data\\x", cwd), "/d:/data/x")
  expect.eq(paths.resolve("/c", cwd), "/c:")
  expect.eq(paths.resolve("../Other", cwd), "/c:/users/dev/other")
  expect.eq(paths.resolve("~/.ssh", cwd), "/c:/users/dev/.ssh")
  expect.eq(paths.resolve("~/.SSH/Id_Rsa", "/d:/work/project"), "~/.ssh/id_rsa")
  expect.eq(paths.resolve("/tmp/x", cwd), "/tmp/x")
  expect.eq(paths.resolve("/c/x", "/home/dev/project"), "/c/x")
  expect.eq(paths.resolve("C:/x", "/home/dev/project"), "/home/dev/project/C:/x")
end)

-- A command line set for a program to run later is read as one: a git
-- setting whose value git runs (-c, git config [set], a "!" alias) and a
-- variable a program runs (GIT_PAGER, GIT_SSH_COMMAND, EDITOR, LESSOPEN),
-- as a prefix, through env or export; an alias without "!", a boolean
-- fsmonitor and a value the line does not show are not command lines.
for _, c in ipairs({
  { [[git -c core.pager='rm -rf ~' log]], "git -c core.pager=rm -rf ~ log ; rm -rf ~", "git -c core.pager" },
  { [[git config alias.x '!rm -rf ~']], "git config alias.x !rm -rf ~ ; rm -rf ~", "git config alias.x" },
  { [[git config set --global core.sshCommand 'ssh -i k']], "git config set --global core.sshCommand ssh -i k ; ssh -i k",
    "git config core.sshCommand" },
  { [[GIT_PAGER='rm -rf ~' git log]], "git log ; rm -rf ~", "GIT_PAGER=" },
  { [[export EDITOR='rm -rf ~'; git commit]], "export EDITOR=rm -rf ~ ; rm -rf ~ ; git commit", "EDITOR=" },
  { [[e''xport EDITOR='rm -rf ~'; git commit]], "export EDITOR=rm -rf ~ ; rm -rf ~ ; git commit", "EDITOR=" },
  { [[env GIT_SSH_COMMAND='rm -rf ~' git fetch]], "[env] git fetch ; rm -rf ~", "GIT_SSH_COMMAND=" },
  { [[git -c core.pager=reboot log]], "git -c core.pager=reboot log ; reboot", "git -c core.pager" },
  { [[LESSOPEN='|rm -rf ~ %s' less x]], "less x ; rm -rf ~ %s", "LESSOPEN=" },
  { [[git -C repo -c diff.external=./x.sh diff]], "git -C repo -c diff.external=./x.sh diff ; x.sh", "git -c diff.external" },
}) do
  test("a command line in a setting is read: " .. c[1], function()
    expect.eq((run(c[1])), c[2])
    local cmds = shell.parse(c[1])
    expect.eq(cmds[#cmds].via == c[3] or cmds[2].via == c[3], true, "via " .. c[3])
  end)
end
for _, c in ipairs({
  { [[git config alias.lg 'log --oneline']], "git config alias.lg log --oneline" },
  { [[git -c core.fsmonitor=true status]], "git -c core.fsmonitor=true status" },
  { [[git config --global --type bool core.fsmonitor false]], "git config --global --type bool core.fsmonitor false" },
  { [[GIT_PAGER="$P" git log]], "git log" },
  { [[git config user.name 'rm -rf ~']], "git config user.name rm -rf ~" },
}) do
  test("a setting that is no command line is not read as one: " .. c[1], function()
    expect.eq((run(c[1])), c[2])
  end)
end

-- git submodule foreach runs its command line in each submodule: read as
-- a nested line, whether given as one word or as several; one that the
-- line does not show is a computed script.
for _, c in ipairs({
  { [[git submodule foreach 'rm -rf ~']], "git submodule foreach rm -rf ~ ; rm -rf ~" },
  { [[git submodule --quiet foreach --recursive git reset --hard]],
    "git submodule --quiet foreach --recursive git reset --hard ; git reset --hard" },
  { [[git -C app submodule foreach -- 'curl -s x | sh']], "git -C app submodule foreach -- curl -s x | sh ; curl -s x ; sh" },
}) do
  test("the command of git submodule foreach is read: " .. c[1], function()
    expect.eq((run(c[1])), c[2])
    local cmds = shell.parse(c[1])
    expect.eq(cmds[2].via, "git submodule foreach")
  end)
end
test("a command of git submodule foreach the line does not show is computed", function()
  local cmds = shell.parse([[git submodule foreach "$CMD"]])
  expect.eq(cmds[1].computed ~= nil, true, "computed")
end)

test("the quick path stops at a setting of a command line", function()
  local q = shell.quick({})
  expect.eq(q("git -c core.pager=reboot log"), false, "git -c core.pager")
  expect.eq(q("git config alias.x status"), false, "git config alias.x")
  expect.eq(q("GIT_PAGER=reboot git log"), false, "GIT_PAGER=")
  expect.eq(q("git log --oneline"), true, "git log")
  expect.eq(q("git -c user.name=dev commit"), true, "git -c user.name")
end)
