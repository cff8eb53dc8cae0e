package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.Job;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The device test: the disni transport between two JVMs of this host ({@link DisniPeerMain} is the target) where
 * DiSNI works: puts from registered and from staged memory, a get back, 8-byte fetch-add and compare-swap, 4-byte
 * fetch-add and compare-swap (compare-swap loops), swap, and a range outside the target's key refused before any
 * work request. Where libdisni or an RDMA device is missing (this machine) it skips, printing why.
 */
class DisniAcrossJvmsTest {
    private static final int ATTEMPT_MS = 60_000;

    @Test
    @Timeout(120)
    void putGetAndAtomicsReachAnotherJvmsRegisteredMemory() throws Exception {
        String why = DisniProbe.unavailableReason();
        if (why != null) {
            System.out.println("DisniAcrossJvmsTest skips: " + why);
        }
        assumeTrue(why == null, why);
        Job job = new Job(2, Map.of(), 0, new int[] {0, 1});
        DisniNode node = DisniNode.listen(job);
        Process child = new ProcessBuilder(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "-Djava.library.path=" + System.getProperty("java.library.path"),
                DisniPeerMain.class.getName())).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            Writer toChild = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
            String card = field(out.readLine(), "CARD");
            toChild.write(node.card() + "\n");
            toChild.flush();
            DisniTransport t = DisniTransport.connect(job, node, new String[] {node.card(), card});
            byte[] key = Base64.getDecoder().decode(field(out.readLine(), "KEY"));
            long h = t.attach(1, key);
            RemoteKey k = RemoteKey.decode(key);
            long base = k.address();

            // a put from registered memory, then from memory in no registration (through the staging buffer)
            ByteBuffer src = ByteBuffer.allocateDirect(DisniPeerMain.DATA).order(ByteOrder.nativeOrder());
            long sum = 0;
            for (int i = 0; i < DisniPeerMain.DATA; i++) {
                src.put(i, (byte) (i * 7 + 3));
                sum += (i * 7 + 3) & 0xFF;
            }
            long srcAddress = new UnsafeBuffer(src).addressOffset();
            var reg = t.register(srcAddress, DisniPeerMain.DATA);
            t.put(1, srcAddress, DisniPeerMain.DATA, base + DisniPeerMain.DATA_AT, h);
            t.unregister(reg);
            t.put(1, srcAddress, DisniPeerMain.DATA, base + DisniPeerMain.DATA_AT, h);
            ByteBuffer back = ByteBuffer.allocateDirect(DisniPeerMain.DATA);
            t.get(1, new UnsafeBuffer(back).addressOffset(), DisniPeerMain.DATA, base + DisniPeerMain.DATA_AT, h);
            assertEquals(src, back, "the get reads what the puts wrote");

            assertEquals(0, t.fetchAdd(1, 40, Long.BYTES, base, h));
            assertEquals(40, t.fetchAdd(1, 2, Long.BYTES, base, h));
            assertEquals(42, t.compareAndSwap(1, 42, 1000, Long.BYTES, base, h), "compare-swap that matches");
            assertEquals(1000, t.compareAndSwap(1, 42, 5, Long.BYTES, base, h), "compare-swap that does not");
            assertEquals(0, t.swap(1, 77, Long.BYTES, base + 8, h));
            assertEquals(0, t.fetchAdd(1, 3, Integer.BYTES, base + 16, h));
            assertEquals(0, t.compareAndSwap(1, 0, -9, Integer.BYTES, base + 20, h));
            assertEquals(3, t.fetchAdd(1, 4, Integer.BYTES, base + 16, h), "the neighbour int is untouched");

            RmaException outside = assertThrows(RmaException.class,
                    () -> t.put(1, srcAddress, 16, base + DisniPeerMain.WINDOW - 8, h));
            assertEquals(ErrorClass.ERR_RMA_RANGE, outside.errorClass());

            toChild.write("REPORT\n");
            toChild.flush();
            assertEquals("WORDS 1000 77 7 -9 SUM " + sum, out.readLine());
            System.out.println("disni across JVMs: " + t.counters());
            assertTrue(child.waitFor(ATTEMPT_MS, TimeUnit.MILLISECONDS), "the child ends");
            assertEquals(0, child.exitValue());
            t.detach(h);
            t.close(0);
        } finally {
            child.destroyForcibly();
        }
    }

    private static String field(String line, String name) {
        assertTrue(line != null && line.startsWith(name + " "), "expected " + name + ", got: " + line);
        return line.substring(name.length() + 1);
    }
}
