package io.jrma.examples;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Win;

/** The README's example program. */
public class Hello {
    public static void main(String[] args) {
        Jrma.run(4, world -> {                                      // 4 ranks, each a thread of this JVM
            int me = world.rank(), n = world.size();
            try (Win win = Win.allocate(world, 8L * (n + 1), 8, null)) { // n+1 longs per rank, disp_unit 8
                win.fence(Win.MODE_NOPRECEDE);                       // open an access/exposure epoch
                int right = (me + 1) % n, left = (me + n - 1) % n;
                win.put(new long[] {100 + me}, 1, Datatype.LONG, right, me); // into slot `me` at `right`
                win.fence(Win.MODE_NOSUCCEED);                       // all puts are complete everywhere
                long got = win.buffer().getLong(8 * left);           // a plain load of my own window
                win.lockAll(0);                                      // passive target: no peer involvement
                long ticket = win.fetchAndAddLong(0, n, 1);          // atomic counter in slot n of rank 0
                win.unlockAll();
                System.out.println("rank " + me + ": got " + got + " from rank " + left + ", ticket " + ticket);
            }                                                        // free (collective)
        });
    }
}
