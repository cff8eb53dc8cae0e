package io.jrma.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The UCP binding between two JVMs of this host ({@link UcxPeerMain} in a child JVM), over UCX's shared-memory
 * and TCP transports: remote keys, put, fetch-add and flush into the child's registered memory with no code of
 * the child's touching it, and tagged messages both ways.
 */
class UcxAcrossJvmsTest {
    @ParameterizedTest
    @ValueSource(strings = {UcxTls.SM, UcxTls.TCP})
    @Timeout(90)
    void putAndFetchAddReachAnotherJvmsRegisteredMemory(String tls) throws Exception {
        UcxWorkerTest.assumeUcx();
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                UcxPeerMain.class.getName(), tls));
        Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (UcxWorker w = UcxWorker.open(tls); Memory local = new Memory(UcxPeerMain.DATA);
             Memory op = new Memory(16); Memory reply = new Memory(16)) {
            BufferedReader out = new BufferedReader(
                    new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("PEER "), "the child's first line: " + line);
            String[] f = line.split(" ");
            Base64.Decoder d = Base64.getDecoder();
            long ep = w.connect(d.decode(f[1]));
            long rkey = w.unpack(ep, d.decode(f[2]));
            long base = Long.parseLong(f[3]);
            Writer toChild = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
            toChild.write(Base64.getEncoder().encodeToString(w.address()) + "\n");
            toChild.flush();

            long sum = 0;
            for (int i = 0; i < UcxPeerMain.DATA; i++) {
                local.setByte(i, (byte) (i * 13 + 5));
                sum += (i * 13 + 5) & 0xFF;
            }
            long t = UcxWorkerTest.TIMEOUT_NS;
            w.await(w.put(ep, Pointer.nativeValue(local), UcxPeerMain.DATA, base + 8, rkey), t);
            op.setLong(0, 40);
            w.await(w.atomic(ep, UcxWorker.Atomic.ADD, Pointer.nativeValue(op), 8, base, rkey, 0), t);
            op.setLong(0, 2);
            w.await(w.atomic(ep, UcxWorker.Atomic.ADD, Pointer.nativeValue(op), 8, base, rkey,
                    Pointer.nativeValue(op) + 8), t);
            assertEquals(40, op.getLong(8), "fetch-add across JVMs returns the old value");
            w.await(w.flush(ep), t);
            w.await(w.send(ep, Pointer.nativeValue(op), 8, UcxPeerMain.TAG), t);

            long deadline = System.nanoTime() + t;
            long m;
            while ((m = w.probe(UcxPeerMain.TAG, UcxPeerMain.MASK)) == 0) {
                w.progress();
                assertTrue(System.nanoTime() < deadline, "no answer from the child");
            }
            w.await(w.receive(m, Pointer.nativeValue(reply), 16), t);
            assertEquals(42, reply.getLong(0), "the child's window holds both adds");
            assertEquals(sum, reply.getLong(8), "the child's window holds the put's bytes");
            // the child flushes its endpoint before it ends, which over TCP needs this side's progress
            CompletableFuture<String> last = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    return e.toString();
                }
            });
            while (!last.isDone()) {
                w.progress();
                assertTrue(System.nanoTime() < deadline + t, "the child did not end");
            }
            assertEquals("DONE", last.join());
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child ends");
            assertEquals(0, child.exitValue());
        } finally {
            child.destroyForcibly();
        }
    }
}
