package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What jrmarun adds to the environment of a JVM it starts on another host. */
class JvmSpawnerTest {
    @Test
    void runTimeParametersOfTheEnvironmentReachOtherHostsAndNothingElseDoes() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("JRMA_PATH", "packet"); // given with -x: wins over the launcher's own environment
        JvmSpawner.forwardParams(env, Map.of("JRMA_MPI_WARMUP", "off", "JRMA_PATH", "auto", "JRMA_NOT_A_PARAM", "1",
                "HOME", "/root", "JRMA_TRANSPORTS", "^shm"));
        assertEquals(Map.of("JRMA_PATH", "packet", "JRMA_MPI_WARMUP", "off", "JRMA_TRANSPORTS", "^shm"), env);
    }
}
