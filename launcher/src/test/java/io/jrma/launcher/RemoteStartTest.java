package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.os.HostId;
import io.jrma.core.os.LocalAddresses;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command a launch agent gets (quoted for the remote shell, no secret in it), which hosts are this one, the
 * rendezvous address of a job across hosts, and how jrmarun's options become a job over hosts.
 */
class RemoteStartTest {
    @Test
    void theRemoteCommandIsOneQuotedShellLineAfterTheHost() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("JRMA_JVM", "2");
        env.put("X", "it's a b");
        List<String> cmd = RemoteStart.command("ssh -p 2222", "user@h1", "/work/my dir", env,
                List.of("/usr/bin/java", "-Dp=a b", "-cp", "/x/*:/y", "Main"));
        assertEquals(List.of("ssh", "-p", "2222", "user@h1", "cd '/work/my dir' && exec sh -c "
                + RemoteStart.quote(RemoteStart.SECRET_SCRIPT) + " jrma env JRMA_JVM=2 'X=it'\\''s a b'"
                + " /usr/bin/java '-Dp=a b' -cp '/x/*:/y' Main"), cmd);
        assertFalse(String.join(" ", cmd).contains("SECRET="), "no secret on the command line");
        assertEquals(List.of("ssh", "h2", "cd / && exec env java -cp /x JrmaRun --cleanup"), RemoteStart.command("ssh",
                "h2", "/", Map.of(), List.of("java", "-cp", "/x", "JrmaRun", "--cleanup"), false),
                "a command that joins no job reads no secret (its stdin is closed)");
        assertThrows(IllegalArgumentException.class, () -> RemoteStart.command("  ", "h", "/", Map.of(), List.of()));
    }

    @Test
    void srunStartsOneTaskOnTheNodeWithTheShellLineAsItsProgram() {
        List<String> cmd = RemoteStart.command("/usr/bin/srun --partition=p", "me@node07", "/w", Map.of("K", "v"),
                List.of("java", "Main"));
        assertEquals("/usr/bin/srun", cmd.get(0));
        assertEquals("--partition=p", cmd.get(1), "the agent's own words first");
        assertEquals(RemoteStart.SRUN_OPTIONS, cmd.subList(2, 2 + RemoteStart.SRUN_OPTIONS.size()));
        assertEquals(List.of("--nodelist=node07", "sh", "-c", "cd /w && exec sh -c "
                + RemoteStart.quote(RemoteStart.SECRET_SCRIPT) + " jrma env K=v java Main"),
                cmd.subList(2 + RemoteStart.SRUN_OPTIONS.size(), cmd.size()));
        assertTrue(RemoteStart.isSrun("srun"));
        assertTrue(RemoteStart.isSrun(" /opt/slurm/bin/srun -p x"));
        assertFalse(RemoteStart.isSrun("ssh"));
        assertFalse(RemoteStart.isSrun("mysrun"));
    }

    @Test
    void theRemoteShellPutsTheSecretInAPrivateFileAndLeavesTheRestOfStdinToTheCommand() throws Exception {
        // the remote command as the agent's shell runs it, here with sh as the agent (no host: 'sh -c CMD')
        List<String> cmd = RemoteStart.command("sh -c", "", "/", Map.of("K", "v"), List.of("sh", "-c",
                "s=$(cat \"$JRMA_SECRET_FILE\"); ls -l \"$JRMA_SECRET_FILE\" | cut -c1-10; rm \"$JRMA_SECRET_FILE\";"
                + " echo \"secret=$s K=$K\"; cat"));
        cmd.remove(2); // the empty host
        Process p = new ProcessBuilder(cmd).start();
        try (var in = p.getOutputStream()) {
            in.write("s3cret\nline for rank 0\n".getBytes(StandardCharsets.US_ASCII));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out + new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals("-rw-------\nsecret=s3cret K=v\nline for rank 0\n", out);
    }

    @Test
    void aPrefixIsCheckedOnTheHostBeforeTheJvmStarts(@TempDir Path dir) throws Exception {
        Path install = dir.resolve("my jrma");
        Files.createDirectories(install.resolve("lib"));
        assertEquals("started\n", runThere(install, "").out, "lib/ is there: the command runs");
        Path nowhere = dir.resolve("nowhere");
        Ran r = runThere(nowhere, "");
        assertEquals(RemoteStart.NOT_INSTALLED, r.code);
        assertEquals("", r.out, "the command did not run");
        assertEquals("jrmarun: jrma is not installed on host h7: " + nowhere + "/lib is not there (--prefix "
                + nowhere + ")\n", r.err);
        assertEquals("started\n", runThere(install, "/").out, "a prefix given with a trailing slash");
    }

    private record Ran(int code, String out, String err) {
    }

    /** The remote line with {@code --prefix}, run by a local shell (the agent 'sh -c' with the host left out). */
    private static Ran runThere(Path prefix, String tail) throws Exception {
        List<String> cmd = new ArrayList<>(RemoteStart.command("sh -c", "h7", "/", prefix + tail, Map.of(),
                List.of("echo", "started"), false));
        cmd.remove(2); // the host
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Ran(p.waitFor(), out, err);
    }

    @Test
    void quotingSurvivesAShell() throws Exception {
        String word = "a'b \"c\" $HOME `x` \\ *";
        Process p = new ProcessBuilder("sh", "-c", "printf %s " + RemoteStart.quote(word)).start();
        assertEquals(word, new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals(0, p.waitFor());
        assertEquals("''", RemoteStart.quote(""));
    }

    @Test
    void thisHostIsRecognisedByItsNamesAndAddresses() {
        assertTrue(RemoteStart.isLocal("localhost"));
        assertTrue(RemoteStart.isLocal("me@localhost"));
        assertTrue(RemoteStart.isLocal("127.0.0.1"));
        assertTrue(RemoteStart.isLocal(HostId.hostName()));
        assertFalse(RemoteStart.isLocal("192.0.2.254"), "TEST-NET-1: documentation only, never this host's");
        assertFalse(RemoteStart.isLocal("no-such-host.invalid"));
    }

    @Test
    void aJobAcrossHostsNeverListensOnLoopback() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RemoteStart.rendezvous(Set.of("192.0.2.254"), Map.of(RemoteStart.TCP_INTERFACE, "loopback")));
        assertTrue(e.getMessage().contains("is loopback, which the other hosts of the job cannot reach"),
                e.getMessage());
        RemoteStart.Listen l = RemoteStart.rendezvous(Set.of("192.0.2.254"), Map.of());
        InetAddress told = l.forHost("192.0.2.254");
        assertFalse(told.isLoopbackAddress() || told.isAnyLocalAddress(), "told " + told);
        assertEquals(LocalAddresses.routeTo(told), told, "an address of this host");
    }

    @Test
    void jrmarunOptionsMapRanksOverHostsAndTheirJvms() {
        JobLauncher.Options o = JrmaRun.parse(new String[] {"--host", "localhost:2,192.0.2.254:2", "--jvms", "4",
            "--launch-agent", "ssh -x", "Main"});
        assertEquals(4, o.nranks);
        assertEquals(4, o.njvms);
        assertEquals(List.of(0, 1, 2, 3), Arrays.stream(o.jvmOfRank).boxed().toList());
        assertEquals(Arrays.asList(null, null, "192.0.2.254", "192.0.2.254"), Arrays.asList(o.hostOfJvm));
        assertEquals("ssh -x", o.launchAgent);
        JobLauncher.Options local = JrmaRun.parse(new String[] {"-H", "localhost:3", "Main"});
        assertEquals(3, local.nranks);
        assertEquals(1, local.njvms);
        assertEquals(null, local.hostOfJvm, "every rank here: a one-host job, on loopback as ever");
    }

    @Test
    void jrmarunSaysWhyAHostListDoesNotFit() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = JrmaRun.run(new String[] {"-n", "3", "--host", "localhost:2", "Main"},
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("jrmarun: there are not enough slots for 3 ranks:"),
                err.toString(StandardCharsets.UTF_8));
    }
}
