package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.shm.ShmFiles;
import io.jrma.transport.tcp.TcpTransport;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Strangers campaign: a real other user of this host ({@link Stranger}, processes of its own started with
 * runuser) goes after a running job of two JVMs. It cannot read or write any of the job's files in /dev/shm, nor
 * its JVMs' memory through /proc; it cannot pass the handshake of a JVM's IO agent, even knowing the job id (only
 * the secret opens it), and its attempt is counted; and files it creates in /dev/shm with the names the job's JVMs
 * will use next do not stop the job: the JVMs create new windows and buffers and communicate as before, and the
 * stranger's files are neither used, truncated nor removed. Skips, saying why, unless the tests run as root with
 * useradd and runuser at hand.
 */
class StrangersTest {
    private static final Path SHM = Path.of("/dev/shm");
    private static final int SIZE = 64 << 10;
    /** How many of the next names of each kind the stranger takes. */
    private static final int SQUAT = 64;

    @AfterEach
    void removeTheStrangersFiles() {
        if (Stranger.why() == null) {
            Stranger.removeFilesIn(SHM);
        }
    }

    @Test
    @Timeout(180)
    void aStrangerCannotConnectNorMapNorDisturbARunningJob() {
        String why = Stranger.why();
        if (why != null) {
            System.out.println("SKIPPED StrangersTest: " + why);
        }
        Assumptions.assumeTrue(why == null, why);
        Jrma.job(2).jvms(2).timeout(Duration.ofSeconds(150)).run(StrangersTest::rank);
    }

    /** One rank per JVM: each rank lets the stranger at its own JVM. */
    private static void rank(Comm world) throws Exception {
        int me = world.rank();
        int peer = 1 - me;
        long pid = ProcessHandle.current().pid();
        Job job = ((CommCore) world).job();
        Win w = Win.allocate(world, SIZE, 1, null);
        for (int i = 0; i < SIZE; i++) {
            w.buffer().put(i, (byte) (i * 3 + me));
        }
        ByteBuffer mem = Jrma.allocateMemory(1 << 20); // the allocator's chunk: a file that stays while the JVM runs
        mem.put(0, (byte) 42);
        world.barrier();
        List<Path> squatted = new ArrayList<>();
        try {
            cannotReadOrWrite(pid);
            cannotPassTheHandshake(job);
            squatted = squatTheNextNames(pid);
            world.barrier();
            // the job goes on: new windows and buffers of this JVM take names the stranger may have taken first
            Win w2 = Win.allocate(world, SIZE, 1, null);
            ByteBuffer mem2 = Jrma.allocateMemory(8 << 20);
            mem2.put(0, (byte) 7);
            w2.lockAll(0);
            w2.put(new byte[] {(byte) (0x60 + me)}, 1, Datatype.BYTE, peer, me);
            w2.unlockAll();
            world.barrier();
            w2.sync();
            assertEquals((byte) (0x60 + peer), w2.buffer().get(peer),
                    "a put into a window created after the squatting");
            for (int i = 0; i < SIZE; i++) {
                assertEquals((byte) (i * 3 + me), w.buffer().get(i), "window byte " + i + " changed");
            }
            assertEquals(42, mem.get(0));
            for (Path p : squatted) {
                assertEquals("junk", Files.readString(p), p + ": the stranger's file was used or truncated");
            }
            world.barrier();
            w2.free();
        } finally {
            for (Path p : squatted) {
                Files.deleteIfExists(p);
            }
        }
        w.free();
    }

    /**
     * The stranger tries to open every jrma file of this JVM, and its memory through /proc, to read and to write, and
     * to swap a file of its own in under a file's name or remove it (/dev/shm is sticky: only the owner may).
     */
    private static void cannotReadOrWrite(long pid) throws IOException {
        List<String> targets = new ArrayList<>();
        for (String f : ShmFiles.filesOf(SHM, pid)) {
            targets.add(SHM.resolve(f).toString());
        }
        assertFalse(targets.isEmpty(), "JVM " + pid + " has no file in /dev/shm to try");
        targets.add("/proc/" + pid + "/mem");
        targets.add("/proc/" + pid + "/map_files");
        targets.add("/proc/" + pid + "/fd");
        Path script = Stranger.script(".sh", """
                for f in "$@"; do
                  if [ -d "$f" ]; then
                    if ls "$f" >/dev/null 2>&1; then echo "LISTED $f"; fi
                  else
                    if (exec 3<"$f") 2>/dev/null; then echo "READ $f"; fi
                    if (exec 3<>"$f") 2>/dev/null; then echo "WROTE $f"; fi
                    case "$f" in /dev/shm/*)
                      # swap a file of the stranger's in under the job's name, or remove the job's file
                      swap="/dev/shm/jrma-stranger-swap-$$"
                      printf junk > "$swap"
                      if mv -f "$swap" "$f" 2>/dev/null; then echo "SWAPPED $f"; fi
                      rm -f "$swap"
                      if rm -f "$f" 2>/dev/null && [ ! -e "$f" ]; then echo "REMOVED $f"; fi
                    esac
                  fi
                done
                echo done
                """);
        List<String> cmd = new ArrayList<>(List.of("sh", script.toString()));
        cmd.addAll(targets);
        Stranger.Result r;
        try {
            r = Stranger.as(cmd);
        } finally {
            Files.deleteIfExists(script);
        }
        System.out.println("StrangersTest: the stranger tried " + targets.size() + " paths of JVM " + pid + ": "
                + r.out().strip().replace('\n', ' '));
        assertEquals("done", r.out().strip(), "the stranger opened the job's files or memory");
    }

    /** The stranger connects to this JVM's IO agent and answers the challenge without the secret. */
    private static void cannotPassTheHandshake(Job job) throws Exception {
        Field opened = Job.class.getDeclaredField("opened");
        opened.setAccessible(true);
        TcpTransport tcp = null;
        for (Object t : (Object[]) opened.get(job)) {
            if (t instanceof TcpTransport tt) {
                tcp = tt;
            }
        }
        assertTrue(tcp != null, "no TCP IO agent in a job over two JVMs");
        if (Stranger.run(List.of("sh", "-c", "command -v python3")).code() != 0) {
            System.out.println("StrangersTest: SKIPPED the handshake part: no python3 for the stranger's client");
            return;
        }
        Field f = TcpTransport.class.getDeclaredField("jobId");
        f.setAccessible(true);
        String jobId = (String) f.get(tcp); // the stranger knows the job id: only the secret may keep it out
        long refusedBefore = tcp.handshakesRefused();
        Path script = Stranger.script(".py", """
                import os, socket, struct, sys
                s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
                s.sendall(struct.pack('>ii', 0x4a524d41, 1) + bytes.fromhex(sys.argv[3])
                          + struct.pack('>i', 1) + os.urandom(16))
                got = b''
                verdict = b''
                try:
                    while len(got) < 52:
                        b = s.recv(52 - len(got))
                        if not b:
                            break
                        got += b
                    s.sendall(os.urandom(32))
                    verdict = s.recv(1)
                except OSError:
                    pass
                print('ADMITTED' if verdict == b'\\x01' else 'REFUSED after a challenge of %d bytes' % len(got))
                """);
        Stranger.Result r;
        try {
            r = Stranger.as(List.of("python3", script.toString(), tcp.endpoint().getAddress().getHostAddress(),
                    String.valueOf(tcp.endpoint().getPort()), jobId));
        } finally {
            Files.deleteIfExists(script);
        }
        System.out.println("StrangersTest: the stranger's handshake with " + tcp.endpoint() + ": " + r.out().strip());
        assertTrue(r.out().startsWith("REFUSED after a challenge of 52 bytes"), r.out());
        long deadline = System.currentTimeMillis() + 10_000;
        while (tcp.handshakesRefused() == refusedBefore && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(refusedBefore + 1, tcp.handshakesRefused(), "the stranger's attempt is counted");
    }

    /**
     * The stranger creates, mode 0666, the next names of this JVM's window segments and allocator chunks, as it can
     * predict them from the names it sees in /dev/shm; returns them (the caller removes them).
     */
    private static List<Path> squatTheNextNames(long pid) throws IOException {
        Pattern numbered = Pattern.compile(ShmFiles.PREFIX + pid + "-([a-z]+)-(\\d+)(-.*)?");
        long max = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(SHM, ShmFiles.PREFIX + pid + "-*")) {
            for (Path p : ds) {
                Matcher m = numbered.matcher(p.getFileName().toString());
                if (m.matches()) {
                    max = Math.max(max, Long.parseLong(m.group(2)));
                }
            }
        }
        List<Path> names = new ArrayList<>();
        for (String what : List.of("win", "mem")) {
            for (long n = max + 1; n <= max + SQUAT; n++) {
                names.add(SHM.resolve(ShmFiles.PREFIX + pid + "-" + what + "-" + n));
            }
        }
        List<String> cmd = new ArrayList<>(List.of("sh", "-c",
                "for f in \"$@\"; do printf junk > \"$f\" && chmod 666 \"$f\" || echo \"cannot create $f\"; done",
                "sh"));
        names.forEach(p -> cmd.add(p.toString()));
        Stranger.Result r = Stranger.as(cmd);
        assertEquals("", r.out().strip(), "the stranger could not create its files");
        System.out.println("StrangersTest: the stranger created " + names.size() + " files at the next names of JVM "
                + pid + " (" + names.get(0).getFileName() + " ...)");
        return names;
    }
}
