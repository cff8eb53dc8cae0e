package io.jrma.transport.disni;

import io.jrma.core.runtime.Job;
import io.jrma.spi.transport.RemoteMemory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The target JVM of {@link DisniAcrossJvmsTest}: JVM 1 of a two-JVM job. It prints its card, reads the origin's,
 * connects, registers a window of {@link #WINDOW} bytes, prints its key, then blocks reading its input (the origin's
 * operations are one-sided: no code of this JVM takes part) until told to report, and prints what its window holds.
 */
public final class DisniPeerMain {
    static final int WINDOW = 1 << 16;
    /** Bytes of the window the origin puts into, after the words the atomics use. */
    static final int DATA_AT = 64;
    static final int DATA = 40_000;

    private DisniPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        Job job = new Job(2, Map.of(), 1, new int[] {0, 1});
        DisniNode node = DisniNode.listen(job);
        System.out.println("CARD " + node.card());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String origin = in.readLine();
        DisniTransport t = DisniTransport.connect(job, node, new String[] {origin, node.card()});
        ByteBuffer window = ByteBuffer.allocateDirect(WINDOW).order(ByteOrder.nativeOrder());
        RemoteMemory.Registration reg = t.register(new UnsafeBuffer(window).addressOffset(), WINDOW);
        System.out.println("KEY " + Base64.getEncoder().encodeToString(reg.key()));
        String line;
        do {
            line = in.readLine();
        } while (line != null && !line.equals("REPORT"));
        long sum = 0;
        for (int i = 0; i < DATA; i++) {
            sum += window.get(DATA_AT + i) & 0xFF;
        }
        System.out.println("WORDS " + window.getLong(0) + " " + window.getLong(8) + " " + window.getInt(16) + " "
                + window.getInt(20) + " SUM " + sum);
        t.unregister(reg);
        t.close(0);
    }
}
