package io.jrma.core.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Group;
import io.jrma.Jrma;
import io.jrma.RmaException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** LocalComm.createGroup: communicators made by the members of a group alone (MPI_Comm_create_group). */
class CreateGroupTest {
    @Test
    @Timeout(30)
    void disjointGroupsWithTheSameTagAndRepeatedCallsEachGetTheirOwnCommunicator() {
        Jrma.job(5).timeout(Duration.ofSeconds(20)).run(world -> {
            int me = world.rank();
            int[] same = me % 2 == 0 ? new int[] {0, 2, 4} : new int[] {1, 3};
            Group g = world.group().incl(same);
            for (int round = 0; round < 3; round++) {
                Comm c = ((LocalComm) world).createGroup(g, 5);
                assertNotNull(c);
                assertEquals(same.length, c.size());
                assertEquals(me / 2, c.rank());
                Object[] all = ((CommCore) c).allgather(me);
                for (int i = 0; i < same.length; i++) {
                    assertEquals(same[i], all[i]);
                }
                c.free();
            }
            if (me == 1) {
                assertNull(((LocalComm) world).createGroup(world.group().incl(0), 5), "non-member gets null");
            }
            if (me == 0) {
                Comm self = ((LocalComm) world).createGroup(world.group().incl(0), 5);
                assertEquals(1, self.size());
                self.free();
            }
            Comm evens = world.create(world.group().incl(0, 2, 4));
            if (evens != null) {
                Group outside = world.group().incl(1);
                RmaException e = assertThrows(RmaException.class, () -> ((LocalComm) evens).createGroup(outside, 0));
                assertEquals(ErrorClass.ERR_GROUP, e.errorClass());
                evens.free();
            }
            world.barrier();
        });
    }
}
