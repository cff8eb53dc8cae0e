package mpi;

/** The ranks of a shift ({@link CartComm#shift}): where data comes from and where it goes. */
public final class ShiftParms {
    private final int rankSource;
    private final int rankDest;

    ShiftParms(int rankSource, int rankDest) {
        this.rankSource = rankSource;
        this.rankDest = rankDest;
    }

    /** The rank to receive from (PROC_NULL off a non-periodic edge). */
    public int getRankSource() {
        return rankSource;
    }

    /** The rank to send to (PROC_NULL off a non-periodic edge). */
    public int getRankDest() {
        return rankDest;
    }
}
