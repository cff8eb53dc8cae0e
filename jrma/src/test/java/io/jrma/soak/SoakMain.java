package io.jrma.soak;

import java.util.Arrays;
import java.util.List;

/**
 * Long mode without Maven: {@code java $(java -cp "jrma/target/lib/*" io.jrma.JvmFlags) -cp
 * "jrma/target/test-classes:jrma/target/lib/*" io.jrma.soak.SoakMain MINUTES [LAYOUT,...]} (the same as
 * {@code -Djrma.soak.minutes=MINUTES} on SoakTest; {@code -Djrma.soak.seed} chooses the seed). Exit code 1 on a
 * failed check, whose message names seed, round and rank.
 */
public final class SoakMain {
    private SoakMain() {
    }

    public static void main(String[] args) throws Exception {
        double minutes = args.length > 0 ? Double.parseDouble(args[0]) : 60;
        List<Soak.Layout> layouts = args.length > 1
                ? Arrays.stream(args[1].split(",")).map(Soak.Layout::of).toList() : Soak.layouts();
        int code = 0;
        try {
            Soak.longMode(minutes, layouts, Soak.SEED, System.out);
        } catch (Throwable t) {
            System.out.println("soak FAILED: " + t);
            t.printStackTrace(System.out);
            code = 1;
        } finally {
            List<String> left = Soak.cleanUp();
            if (!left.isEmpty()) {
                System.out.println("soak: removed /dev/shm files left by the jobs' JVMs: " + left);
            }
        }
        System.out.flush();
        Runtime.getRuntime().halt(code); // the launcher's pooled JVMs are gone; do not wait for their threads
    }
}
