# The exec action's spawner in Perl (issue 14), used when perl is on the machine (Debian's perl-base is essential, so
# it is in node:20-slim and on every Debian host); ./exec-spawner.mjs is the same program in node for machines without
# perl. Why a second one: every script is a fork and exec, and this VM pays for a fork by the size of the forking
# process. From node's spawner (about 50 MB mapped, and libuv's spawn path on its thread) a script cost about 16 ms of
# CPU in all; from this one (a few MB, plain fork and exec) about 10, of which bash's own start is most
# (measured in the session notes of server/modules/playbooks/README.md, "Figures").
#
# Only modules of perl-base. Frames on stdin/stdout, as ./exec-process.ts writes and reads them: type (1 byte),
# request id (uint32 BE), payload length (uint32 BE), payload; a payload is a list of fields, each a uint32 BE length
# and its bytes, except O/e (raw output bytes).
#   in:  S spawn [command, cwd, argc, args…, env name, value, …] · K stop the group (SIGTERM, SIGKILL after the grace)
#        T make a temporary tree [prefix, dir count, dirs…, (path, mode, text)…] · R remove a tree [path]
#   out: P started [pid] · E failed [message, errno name] · O stdout bytes · e stderr bytes
#        X exit [code or '', signal number or ''] · C closed (its pipes, or the pipe grace passed) · D done [path?]
# Stdin's end (the console is gone) kills every group it started, then this process.
use strict;
use warnings;
use Errno ();
use Fcntl qw(F_GETFL F_SETFL O_CREAT O_EXCL O_NONBLOCK O_WRONLY);
use POSIX ();

my $KILL_GRACE = ($ARGV[0] || 2000) / 1000;
my $PIPE_GRACE = ($ARGV[1] || 1000) / 1000;
# while a script runs, select wakes at least this often: a SIGCHLD that lands just before select blocks is seen late
# by at most this much (perl defers its handlers to between operations)
my $REAP_TICK = 0.1;
my $READ_SIZE = 65536;

# id → {pid, fhs => {O => fh, e => fh}, exited, kill_at, close_at}
my %procs;
my %id_of_pid;
# fileno → [id, 'O' | 'e', fh]
my %readers;
# groups between SIGTERM and SIGKILL (their script may have ended): pgid → when
my %stopping;
my $inbuf = '';

$SIG{CHLD} = sub { };    # a handler (not the default) so that select returns EINTR when a script ends
$SIG{PIPE} = 'IGNORE';   # a write to a console that is gone fails with EPIPE instead

sub fields { return pack('(N/a*)*', @_) }

# Writes all of it; the console reads its end continuously, so blocking here is the back-pressure on the scripts.
sub put {
  my ($type, $id, $body) = @_;
  my $frame = pack('a1 N N', $type, $id, length $body) . $body;
  my $off = 0;
  while ($off < length $frame) {
    my $n = syswrite(STDOUT, $frame, length($frame) - $off, $off);
    if (!defined $n) {
      next if $!{EINTR};
      kill_all();
    }
    $off += $n;
  }
}

sub errno_name {
  my ($errno) = @_;
  local $! = $errno;
  for my $name (keys %!) { return $name if $!{$name} }
  return '';
}

sub fail { my ($id, $message, $errno) = @_; put('E', $id, fields($message, defined $errno ? errno_name($errno) : '')) }

sub signal_group {
  my ($pid, $sig) = @_;
  return kill($sig, -$pid) ? 1 : 0;
}

# SIGTERM to the group now, SIGKILL after the grace (kept after the script ended: a member that ignores SIGTERM)
sub stop_group {
  my ($p) = @_;
  return if !$p->{pid} || $p->{kill_at} || !signal_group($p->{pid}, 'TERM');
  $p->{kill_at} = time_now() + $KILL_GRACE;
  $stopping{$p->{pid}} = $p->{kill_at};
}

# seconds on a monotonic clock, to 1/CLK_TCK (times() counts real time in ticks; Time::HiRes is not in perl-base)
my $TICKS = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;
sub time_now { return (POSIX::times())[0] / $TICKS }

sub nonblocking {
  my ($fh) = @_;
  my $flags = fcntl($fh, F_GETFL, 0);
  fcntl($fh, F_SETFL, $flags | O_NONBLOCK);
}

sub start {
  my ($id, @f) = @_;
  my ($command, $cwd, $argc) = splice(@f, 0, 3);
  my @args = splice(@f, 0, $argc // 0);
  my %env = @f;
  my ($or, $ow, $er, $ew, $xr, $xw);
  # perl marks descriptors above 2 close-on-exec: the script gets only its own three
  unless (pipe($or, $ow) && pipe($er, $ew) && pipe($xr, $xw)) {
    fail($id, "spawn $command: $!", $! + 0);
    return;
  }
  my $pid = fork();
  if (!defined $pid) {
    fail($id, "spawn $command: $!", $! + 0);
    return;
  }
  if ($pid == 0) {
    # the child: its own process group, stdin from /dev/null, the pipes as stdout and stderr, only the given env
    $SIG{CHLD} = 'DEFAULT';
    $SIG{PIPE} = 'DEFAULT';
    POSIX::setpgid(0, 0);
    my $ok = chdir($cwd) && open(STDIN, '<', '/dev/null')
      && defined(POSIX::dup2(fileno($ow), 1)) && defined(POSIX::dup2(fileno($ew), 2));
    if ($ok) {
      %ENV = %env;
      no warnings 'exec';
      exec { $command } $command, @args;
    }
    # chdir or exec failed: the parent reads why from the close-on-exec pipe
    syswrite($xw, pack('N', $! + 0));
    POSIX::_exit(127);
  }
  POSIX::setpgid($pid, $pid);    # also here, so that a kill right after this finds the group
  close($ow);
  close($ew);
  close($xw);
  my $why = '';
  while (1) {
    my $n = sysread($xr, $why, 4);
    last if defined $n || !$!{EINTR};
  }
  close($xr);
  if (length($why) == 4) {
    my $errno = unpack('N', $why);
    waitpid($pid, 0);
    close($or);
    close($er);
    local $! = $errno;
    fail($id, "spawn $command " . errno_name($errno), $errno);
    return;
  }
  nonblocking($or);
  nonblocking($er);
  my $p = { pid => $pid, fhs => { O => $or, e => $er }, exited => 0 };
  $procs{$id} = $p;
  $id_of_pid{$pid} = $id;
  $readers{fileno($or)} = [$id, 'O', $or];
  $readers{fileno($er)} = [$id, 'e', $er];
  put('P', $id, fields($pid));
}

sub close_stream {
  my ($id, $type) = @_;
  my $p = $procs{$id} or return;
  my $fh = delete $p->{fhs}{$type} or return;
  delete $readers{fileno($fh)};
  close($fh);
}

# Closed: both pipes at their end after the exit, or the pipe grace passed (a grandchild that left the group holds them)
sub finish_if_done {
  my ($id, $force) = @_;
  my $p = $procs{$id} or return;
  return unless $p->{exited} && ($force || !%{ $p->{fhs} });
  close_stream($id, $_) for keys %{ $p->{fhs} };
  delete $procs{$id};
  put('C', $id, '');
}

sub reap {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $status = $?;
    my $id = delete $id_of_pid{$pid};
    next unless defined $id;
    my $p = $procs{$id} or next;
    my ($code, $signal) = ('', '');
    if (POSIX::WIFEXITED($status)) { $code = POSIX::WEXITSTATUS($status) }
    elsif (POSIX::WIFSIGNALED($status)) { $signal = POSIX::WTERMSIG($status) }
    put('X', $id, fields($code, $signal));
    $p->{exited} = 1;
    # the script is done: whatever it left running in its group goes too
    stop_group($p);
    $p->{close_at} = time_now() + $KILL_GRACE + $PIPE_GRACE;
    finish_if_done($id, 0);
  }
}

sub make_tree {
  my ($id, $prefix, $ndirs, @rest) = @_;
  my @dirs = splice(@rest, 0, $ndirs // 0);
  my @chars = ('a' .. 'z', 'A' .. 'Z', '0' .. '9');
  my $base;
  for (1 .. 100) {
    my $try = $prefix . join('', map { $chars[int rand @chars] } 1 .. 6);
    if (mkdir($try, 0700)) { $base = $try; last }
    return fail($id, "mkdtemp $try: $!", $! + 0) unless $!{EEXIST};
  }
  return fail($id, "mkdtemp ${prefix}XXXXXX: no free name") unless defined $base;
  for my $d (@dirs) {
    mkdir("$base/$d", 0700) or return fail($id, "mkdir $base/$d: $!", $! + 0);
  }
  while (@rest) {
    my ($path, $mode, $text) = splice(@rest, 0, 3);
    my $file = "$base/$path";
    sysopen(my $fh, $file, O_WRONLY | O_CREAT | O_EXCL, $mode) or return fail($id, "open $file: $!", $! + 0);
    my $off = 0;
    while ($off < length $text) {
      my $n = syswrite($fh, $text, length($text) - $off, $off);
      if (!defined $n) {
        next if $!{EINTR};
        my $err = $! + 0;
        close($fh);
        return fail($id, "write $file: $!", $err);
      }
      $off += $n;
    }
    close($fh) or return fail($id, "close $file: $!", $! + 0);
  }
  put('D', $id, fields($base));
}

sub remove_tree {
  my ($id, $path) = @_;
  require File::Path;
  File::Path::remove_tree($path, { error => \my $errors });
  if ($errors && @$errors) {
    my ($where, $message) = %{ $errors->[0] };
    return fail($id, "rm $where: $message");
  }
  put('D', $id, '');
}

# the console is gone (or closed us): nothing it started may outlive it
sub kill_all {
  signal_group($_->{pid}, 'KILL') for values %procs;
  signal_group($_, 'KILL') for keys %stopping;
  POSIX::_exit(0);
}

sub handle {
  my ($type, $id, $body) = @_;
  if ($type eq 'K') {
    my $p = $procs{$id};
    stop_group($p) if $p && !$p->{exited};
    return;
  }
  my @f = unpack('(N/a*)*', $body);
  if ($type eq 'S') { start($id, @f) }
  elsif ($type eq 'T') { make_tree($id, @f) }
  elsif ($type eq 'R') { remove_tree($id, @f) }
  else { fail($id, "unknown request $type") }
}

sub timers {
  my $now = time_now();
  my $next;
  for my $pid (keys %stopping) {
    my $at = $stopping{$pid};
    if ($at <= $now) {
      delete $stopping{$pid};
      signal_group($pid, 'KILL');
      next;
    }
    $next = $at if !defined $next || $at < $next;
  }
  for my $id (keys %procs) {
    my $p = $procs{$id};
    next unless defined $p->{close_at};
    if ($p->{close_at} <= $now) { finish_if_done($id, 1); next }
    $next = $p->{close_at} if !defined $next || $p->{close_at} < $next;
  }
  my $wait = defined $next ? $next - $now : undef;
  $wait = $REAP_TICK if %id_of_pid && (!defined $wait || $wait > $REAP_TICK);
  return $wait;
}

while (1) {
  reap();
  my $wait = timers();
  my $rin = '';
  vec($rin, 0, 1) = 1;
  vec($rin, $_, 1) = 1 for keys %readers;
  my $n = select(my $rout = $rin, undef, undef, $wait);
  if ($n < 0) {
    next if $!{EINTR};
    die "exec spawner: select: $!\n";
  }
  next if $n == 0;
  if (vec($rout, 0, 1)) {
    my $got = sysread(STDIN, $inbuf, $READ_SIZE, length $inbuf);
    if (defined $got && $got == 0) { kill_all() }
    if (!defined $got && !$!{EINTR} && !$!{EAGAIN}) { kill_all() }
    while (length($inbuf) >= 9) {
      my ($type, $id, $len) = unpack('a1 N N', $inbuf);
      last if length($inbuf) < 9 + $len;
      my $body = substr($inbuf, 9, $len);
      substr($inbuf, 0, 9 + $len, '');
      handle($type, $id, $body);
    }
  }
  for my $fd (keys %readers) {
    next unless vec($rout, $fd, 1);
    my $r = $readers{$fd} or next;
    my ($id, $type, $fh) = @$r;
    my $got = sysread($fh, my $chunk, $READ_SIZE);
    if ($got) { put($type, $id, $chunk) }
    elsif (defined $got || (!$!{EINTR} && !$!{EAGAIN})) {
      close_stream($id, $type);
      finish_if_done($id, 0);
    }
  }
}
