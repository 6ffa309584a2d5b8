import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isEphemeral, judgeEphemeral, EPHEMERAL_VERBS } from '../../src/guards/index.js';
import { GLANCE_MAX_CHARS } from '../../src/glance/index.js';

// [behaviour, command]
const ALLOWED: Array<[string, string]> = [
  // git, read-only
  ['git status is a glance', 'git status'],
  ['git status with flags', 'git status --porcelain -b'],
  ['git diff', 'git diff'],
  ['git diff of staged changes', 'git diff --cached --stat'],
  ['git log with a format', "git log --oneline -20 --format='%h %s'"],
  ['git show of a commit', 'git show HEAD~1 --stat'],
  ['git branch lists', 'git branch'],
  ['git branch -a lists all', 'git branch -a'],
  ['git branch -vv', 'git branch -vv'],
  ['git branch --show-current', 'git branch --show-current'],
  ['git branch --contains takes a commit', 'git branch --contains HEAD'],
  ['git branch --list takes a pattern', "git branch --list 'feat/*'"],
  ['git stash list', 'git stash list'],
  ['git stash show', 'git stash show -p'],
  ['git worktree list', 'git worktree list'],
  ['git remote alone', 'git remote'],
  ['git remote -v', 'git remote -v'],
  ['git remote get-url', 'git remote get-url origin'],
  ['git rev-parse', 'git rev-parse --abbrev-ref HEAD'],
  ['git describe', 'git describe --tags --always'],
  ['git ls-files', 'git ls-files -m'],
  ['git blame a range', 'git blame -L 10,20 src/a.ts'],
  ['git shortlog of a revision', 'git shortlog -sn HEAD'],
  ['git reflog', 'git reflog -10'],
  ['git reflog show', 'git reflog show main'],
  ['git cherry', 'git cherry -v'],
  ['git for-each-ref', "git for-each-ref --format='%(refname)' refs/heads"],
  ['git symbolic-ref reads HEAD', 'git symbolic-ref --short HEAD'],
  ['git whatchanged', 'git whatchanged -1'],
  ['git cat-file', 'git cat-file -p HEAD'],
  ['git count-objects', 'git count-objects -v'],
  ['git check-ignore', 'git check-ignore -v dist/x.js'],
  ['git var', 'git var GIT_AUTHOR_IDENT'],
  ['git config --get', 'git config --get user.email'],
  ['git config --list', 'git config --list'],
  ['git config get (new syntax)', 'git config get user.name'],
  ['git --no-pager log', 'git --no-pager log -3'],
  ['git ls-tree', 'git ls-tree HEAD src'],
  ['git merge-base', 'git merge-base main HEAD'],
  // files and system
  ['ls', 'ls'],
  ['ls -la', 'ls -la'],
  ['pwd', 'pwd'],
  ['df -h', 'df -h'],
  ['du -sh', 'du -sh node_modules'],
  ['free -m', 'free -m'],
  ['uptime', 'uptime'],
  ['date', 'date'],
  ['date with a format', 'date +%Y-%m-%d'],
  ['date -d takes a value', 'date -d yesterday +%F'],
  ['date -u', 'date -u'],
  ['whoami', 'whoami'],
  ['hostname', 'hostname'],
  ['hostname -I', 'hostname -I'],
  ['id', 'id -u'],
  // processes
  ['ps aux', 'ps aux'],
  ['ps piped into grep', 'ps aux | grep node'],
  ['ss', 'ss -tlnp'],
  ['pgrep', 'pgrep -f vite'],
  // file reading
  ['cat', 'cat README.md'],
  ['head -n', 'head -n 40 src/index.ts'],
  ['tail -n', 'tail -n 20 build.log'],
  ['wc -l', 'wc -l src/*.ts'],
  ['stat', 'stat package.json'],
  ['file', 'file dist/flower'],
  ['find by name', "find . -name '*.ts' -not -path './node_modules/*'"],
  ['find -newer only compares times', 'find src -newer package.json -type f'],
  ['tree -L', 'tree -L 2'],
  ['echo', 'echo hello'],
  // probes
  ['type', 'type -a python3'],
  ['command -v looks a name up', 'command -v node'],
  ['which several', 'which g++ clang++ make'],
  ['whereis', 'whereis gcc'],
  ['uname -a', 'uname -a'],
  ['arch', 'arch'],
  ['locale', 'locale -a'],
  ['nproc', 'nproc'],
  ['getconf', 'getconf PAGE_SIZE'],
  // filters
  ['grep -rn', 'grep -rn TODO src'],
  ['grep with a quoted > is literal', 'grep "a>b" notes.txt'],
  ['grep with a quoted | is not a pipe', "grep 'foo|bar' -E log.txt"],
  ['grep for a literal $( in single quotes', "grep -F '$(' script.sh"],
  ['egrep', 'egrep "x|y" f'],
  ['fgrep', 'fgrep -- -x f'],
  ['rg', 'rg -n "fn main" --type rust'],
  ['sort -u', 'sort -u names.txt'],
  ['sort -t with the separator o', 'sort -to -k2 f.txt'],
  ['uniq -c', 'sort f | uniq -c'],
  ['uniq -f takes a number', 'uniq -f 2 f.txt'],
  ['cut', 'cut -d: -f1 /etc/passwd'],
  ['tr', 'echo abc | tr a-z A-Z'],
  ['awk print', "awk -F: '{print $1}' /etc/passwd"],
  ['awk comparison in a pattern', "awk '$3 > 100 {print $1}' data.txt"],
  ['awk print of a quoted >', 'awk \'{print $1 ">" $2}\' f'],
  ['awk with -v', "awk -v n=3 'NR<=n' f"],
  ['sed -n range', "sed -n '1,20p' file.txt"],
  ['sed substitution', "sed 's/foo/bar/g' file.txt"],
  ['sed with -e', "sed -e 's/a/b/' -e '/^#/d' f"],
  ['sed with labels', "sed ':a;N;$!ba;s/\\n/ /g' f"],
  ['sed with another delimiter', "sed 's|/usr|/opt|' paths"],
  ['column', 'column -t data.tsv'],
  ['jq', "jq '.dependencies | keys' package.json"],
  ['nl', 'nl -ba f'],
  ['rev', 'rev f'],
  ['comm', 'comm -12 a b'],
  ['diff', 'diff -u a.txt b.txt'],
  // the original treats it as a glance: it prints the object name a file would get and writes nothing
  ['git hash-object FILE', 'git hash-object README.md'],
  // composition
  ['&& chains', 'git status && git log -1'],
  ['; sequences', 'pwd; ls; whoami'],
  ['a trailing ; is fine', 'ls;'],
  ['newline separates commands', 'pwd\nls -la'],
  ['|& pipes both streams', 'git log |& head'],
  ['2>&1 is allowed', 'ls missing 2>&1 | head'],
  ['&>/dev/null is allowed', 'which node &>/dev/null && echo yes'],
  ['|| chains', 'cat notes.txt 2>/dev/null || echo missing'],
  ['(flipped) < reads a plain file', 'wc -l < file'],
  ['(flipped) cd DIR && glance', 'cd src && ls'],
  ['>/dev/null discards', 'which gcc >/dev/null 2>&1 && echo found'],
  ['>&2 duplicates a descriptor', 'echo oops >&2'],
  ['a comment is ignored', 'ls # list files'],
  ['escaped space in a path', 'cat my\\ file.txt'],
  ['long pipelines', 'git log --oneline | grep fix | sort | uniq -c | sort -rn | head -5'],
  ['test and [', 'test -f package.json && [ -d src ] && echo both'],
  ['basename and dirname', 'basename /a/b.c; dirname /a/b.c'],
  ['realpath', 'realpath .'],
  ['CRLF line endings', 'git status\r\nls\r\n'],
];

const REFUSED: Array<[string, string]> = [
  // flipped from allowed (issue 10): they leak the environment, pick another repo, or talk to daemons
  ['(flipped) git -C dir status', 'git -C ../other status'],
  ['(flipped) ll', 'll'],
  ['(flipped) dir', 'dir'],
  ['(flipped) env alone prints', 'env'],
  ['(flipped) env piped into grep', 'env | grep PATH'],
  ['(flipped) printenv a variable', 'printenv HOME'],
  ['(flipped) top in batch mode', 'top -b -n 1'],
  ['(flipped) jobs', 'jobs'],
  ['(flipped) lsof a port', 'lsof -i :3000'],
  ['(flipped) netstat', 'netstat -tlnp'],
  ['(flipped) systemctl status', 'systemctl status nginx'],
  ['(flipped) systemctl --user status', 'systemctl --user status foo'],
  ['(flipped) docker ps', 'docker ps -a'],
  ['(flipped) docker images', 'docker images'],
  ['(flipped) kubectl get', 'kubectl get pods -n web'],
  ['(flipped) kubectl -n before get', 'kubectl -n web get pods'],
  ['(flipped) echo with a variable', 'echo $HOME'],
  ['(flipped) echo with a braced variable', 'echo "${PATH}"'],
  ['(flipped) sw_vers', 'sw_vers'],
  ['(flipped) || chains', 'cat .env 2>/dev/null || echo missing'],
  // substitution
  ['$( … ) substitution', 'echo $(rm -rf /)'],
  ['$( … ) inside double quotes', 'echo "$(id)"'],
  ['backticks', 'echo `whoami`'],
  ['backticks inside double quotes', 'echo "`date`"'],
  ['<( … ) process substitution', 'diff <(ls a) <(ls b)'],
  ['>( … ) process substitution', 'ls >(cat)'],
  ['$(( arithmetic is a substitution too', 'echo $((1+2))'],
  // redirection
  ['> writes a file', 'echo hi > out.txt'],
  ['>> appends to a file', 'echo hi >> out.txt'],
  ['2> into a file', 'ls 2> err.log'],
  ['&> into a file', 'ls &> all.log'],
  ['>| clobbers', 'echo x >| f'],
  ['>&file writes a file', 'ls >&out.log'],
  ['here-doc', 'cat <<EOF\nx\nEOF'],
  ['here-string', 'grep x <<< "$v"'],
  ['redirection without a target', 'ls >'],
  ['cat into a file', 'cat a > b'],
  // background and grouping
  ['a lone & backgrounds', 'sleep 100 &'],
  ['& between commands', 'ls & pwd'],
  ['subshells', '(cd /tmp && ls)'],
  ['brace groups', '{ ls; pwd; }'],
  // named dangers
  ['xargs', 'ls | xargs rm'],
  ['xargs even with echo', 'echo a | xargs echo'],
  ['exec', 'exec ls'],
  ['eval', 'eval "ls"'],
  ['source', 'source .env'],
  ['. (dot)', '. ./env.sh'],
  ['tee', 'echo x | tee f'],
  ['sudo', 'sudo ls'],
  // sed
  ['sed -i', "sed -i 's/a/b/' f"],
  ['sed -i with a suffix', "sed -i.bak 's/a/b/' f"],
  ['sed -ni cluster', "sed -ni 's/a/b/p' f"],
  ['sed --in-place', "sed --in-place 's/a/b/' f"],
  ['sed -i after -e', "sed -e 's/a/b/' -i f"],
  ['sed w command', "sed -n '/x/w out.txt' f"],
  ['sed s///w flag', "sed 's/a/b/w out.txt' f"],
  ['sed e command', "sed '1e date' f"],
  ['sed s///e flag', "sed 's/.*/date/e' f"],
  ['sed -f program file', 'sed -f script.sed f'],
  ['sed unterminated s', "sed 's/a/b' f"],
  // sort, uniq, tree, tail
  ['sort -o', 'sort -o out.txt in.txt'],
  ['sort -uo cluster', 'sort -uo out.txt in.txt'],
  ['sort --output', 'sort --output=out.txt in.txt'],
  ['sort --compress-program', 'sort --compress-program=sh big'],
  ['uniq IN OUT writes OUT', 'uniq in.txt out.txt'],
  ['tree -o', 'tree -o tree.txt'],
  ['tail -f never returns', 'tail -f app.log'],
  ['tail -F', 'tail -F app.log'],
  // find
  ['find -delete', "find . -name '*.tmp' -delete"],
  ['find -exec', 'find . -exec rm {} \\;'],
  ['find -execdir', 'find . -execdir touch x \\;'],
  ['find -ok', 'find . -ok rm {} \\;'],
  ['find -fprint', 'find . -fprint list.txt'],
  ['find -fprintf', "find . -fprintf list.txt '%p'"],
  ['find -fls', 'find . -fls list.txt'],
  // awk
  ['awk system()', 'awk \'{system("rm " $1)}\' f'],
  ['awk print >', 'awk \'{print $1 > "out"}\' f'],
  ['awk printf >>', 'awk \'{printf "%s", $1 >> "out"}\' f'],
  ['awk print | command', 'awk \'{print | "sh"}\' f'],
  ['awk command | getline', 'awk \'BEGIN{"date" | getline d}\''],
  ['awk ENVIRON', 'awk \'BEGIN{print ENVIRON["TOKEN"]}\''],
  ['awk -i inplace', "awk -i inplace '{print}' f"],
  ['awk -f program file', 'awk -f prog.awk f'],
  // git
  ['git push', 'git push'],
  ['git push --force', 'git push --force origin main'],
  ['git reset --hard', 'git reset --hard HEAD~1'],
  ['git fetch --prune', 'git fetch --prune'],
  ['git log --force-with-lease is still refused (flag)', 'git log --force-with-lease'],
  ['git commit', "git commit -m 'x'"],
  ['git checkout', 'git checkout main'],
  ['git add', 'git add .'],
  ['git branch -d', 'git branch -d old'],
  ['git branch -D', 'git branch -D old'],
  ['git branch -m', 'git branch -m new'],
  ['git branch -M', 'git branch -M main'],
  ['git branch NAME creates a branch', 'git branch feature-x'],
  ['git branch --delete', 'git branch --delete old'],
  ['git stash (push)', 'git stash'],
  ['git stash pop', 'git stash pop'],
  ['git worktree add', 'git worktree add ../wt'],
  ['git remote add', 'git remote add up https://example.invalid/r.git'],
  ['git reflog expire', 'git reflog expire --all'],
  ['git symbolic-ref writing HEAD', 'git symbolic-ref HEAD refs/heads/x'],
  ['git hash-object -w', 'git hash-object -w f'],
  ['git config setting a value', 'git config user.name x'],
  ['git config --unset', 'git config --get x --unset y'],
  ['git -c can install a pager', "git -c core.pager='sh -c id' log"],
  ['git diff --output writes a file', 'git diff --output=patch.diff'],
  ['git without a subcommand', 'git'],
  ['git unknown global option', 'git --exec-path=/tmp log'],
  ['git clean', 'git clean -fdx'],
  ['git shortlog without a revision reads standard input', 'git shortlog -sn'],
  ['git cat-file --batch reads object names from standard input', 'git cat-file --batch'],
  // verbs and arguments that mutate or run code
  ['rm', 'rm -rf build'],
  ['mkdir', 'mkdir out'],
  ['touch', 'touch f'],
  ['mv', 'mv a b'],
  ['cp', 'cp a b'],
  ['chmod', 'chmod +x f'],
  ['npm install', 'npm install'],
  ['node runs code', 'node -e "1"'],
  ['python runs code', 'python3 script.py'],
  ['bash -c', "bash -c 'ls'"],
  ['sh -c', "sh -c 'ls'"],
  ['curl', 'curl https://example.invalid'],
  ['kill', 'kill 123'],
  ['pkill', 'pkill node'],
  ['date -s sets the clock', "date -s '2020-01-01'"],
  ['date MMDDhhmm sets the clock', 'date 010112002020'],
  ['hostname NAME sets it', 'hostname newname'],
  ['env CMD runs CMD', 'env rm -rf x'],
  ['env VAR=x CMD runs CMD', 'env FOO=1 ls'],
  ['ss -K kills sockets', 'ss -K dst 1.2.3.4'],
  ['systemctl restart', 'systemctl restart nginx'],
  ['docker run', 'docker run alpine'],
  ['docker rm', 'docker rm x'],
  ['kubectl delete', 'kubectl delete pod x'],
  ['command without -v runs it', 'command rm f'],
  ['rg --pre runs a command', 'rg --pre ./decode x'],
  ['file -C writes a compiled magic file', 'file -C -m magic'],
  ['a path to a binary is not a verb', '/bin/ls'],
  ['a relative script is not a verb', './ls'],
  ['VAR=x prefix', 'LC_ALL=C ls'],
  ['! negation', '! grep x f'],
  ['[[ is not a verb', '[[ -f x ]]'],
  ['time wraps a command', 'time ls'],
  ['watch', 'watch ls'],
  ['less can run commands', 'less f'],
  // composition
  ['one bad segment spoils the chain', 'git status && rm -rf x'],
  ['a bad segment after a pipe', 'cat f | sh'],
  ['a bad segment after ;', 'ls; touch x'],
  ['a bad segment after a newline', 'ls\ntouch x'],
  ['empty command', ''],
  ['only spaces', '   '],
  ['only a comment', '# nothing'],
  ['&& with nothing after', 'ls &&'],
  ['| with nothing after', 'ls |'],
  ['|| at the start', '|| ls'],
  ['unterminated single quote', "echo 'abc"],
  ['unterminated double quote', 'echo "abc'],
];

test('the allowlist table has at least 150 cases', () => {
  assert.ok(ALLOWED.length + REFUSED.length >= 150, String(ALLOWED.length + REFUSED.length));
});

/** Allowed only as the rewritten command that excludes `.env` files (recursive searches). */
const REWRITTEN: Readonly<Record<string, string>> = {
  'grep -rn TODO src': "grep '--exclude=.env*' '--exclude=*.env' -rn TODO src",
  'rg -n "fn main" --type rust': `rg -g '!.env*' -g '!*.env' -n "fn main" --type rust`,
};

for (const [behaviour, command] of ALLOWED) {
  test(`allowed: ${behaviour}`, () => {
    const rewritten = Object.hasOwn(REWRITTEN, command) ? REWRITTEN[command] : undefined;
    assert.deepEqual(judgeEphemeral(command), rewritten === undefined ? { ok: true } : { ok: true, command: rewritten }, command);
    assert.equal(isEphemeral(command), true);
  });
}

for (const [behaviour, command] of REFUSED) {
  test(`refused: ${behaviour}`, () => {
    const v = judgeEphemeral(command);
    assert.equal(v.ok, false, `expected refusal: ${command}`);
    assert.equal(isEphemeral(command), false);
    if (!v.ok) assert.ok(v.reason.length > 0);
  });
}

test('a refusal names what was wrong', () => {
  const v = judgeEphemeral('git status && sed -i s/a/b/ f');
  assert.equal(v.ok, false);
  if (!v.ok) assert.match(v.reason, /`-i` edits files in place; a worker can run it/);
  const u = judgeEphemeral('frobnicate --all');
  assert.equal(u.ok, false);
  if (!u.ok) assert.match(u.reason, /`frobnicate` is not a read-only verb a glance may use; a worker can run it/);
});

test('the verb table names every spec verb group', () => {
  for (const v of ['git', 'ls', 'ps', 'cat', 'which', 'grep', 'sed', 'awk', 'jq', 'type', 'find', 'sha256sum', 'cd']) {
    assert.ok(EPHEMERAL_VERBS.includes(v), v);
  }
  for (const v of ['rm', 'env', 'printenv', 'kubectl', 'docker', 'systemctl', 'jobs', 'xargs']) assert.ok(!EPHEMERAL_VERBS.includes(v), v);
});

test('a long pipeline is judged segment by segment, to the last one, up to the length cap', () => {
  // speed is asserted in ephemeral-adversarial.test.ts; this checks the judgement holds at length
  const segments = Array.from({ length: 400 }, (_, i) => `grep -n "x${i}" f.txt`);
  const fit = segments.slice(
    0,
    segments.findIndex((_, i) => segments.slice(0, i + 1).join(' | ').length + ' | tee out.txt'.length > GLANCE_MAX_CHARS),
  );
  const cmd = fit.join(' | ');
  assert.equal(isEphemeral(cmd), true);
  assert.equal(isEphemeral(`${cmd} | tee out.txt`), false);
  const v = judgeEphemeral(`${cmd} | ${cmd}`);
  assert.equal(v.ok, false);
  if (!v.ok) assert.match(v.reason, /too long for a glance \(at most 4096\); a worker can run it/);
});
