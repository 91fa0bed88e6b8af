package io.faultline.checker.linear;

/**
 * A topic's existence and partition count as one object, as the controller keeps it: the state is the number of
 * partitions, 0 while the topic does not exist. Creation, deletion and CreatePartitions are decided by the (single,
 * replicated) controller, so the acknowledged ones must be linearizable; a description after the cluster healed must
 * show the state they leave.
 * <ul>
 *   <li>{@link Op.Create}: acknowledged only where the topic did not exist; it then has {@code partitions};</li>
 *   <li>{@link Op.Delete}: acknowledged only where it existed; then it does not;</li>
 *   <li>{@link Op.Grow}: acknowledged only where it existed with fewer than {@code to}; then it has {@code to};</li>
 *   <li>{@link Op.Describe}: returns the state (0: unknown topic).</li>
 * </ul>
 * An acknowledged op's output is {@link #OK}; an indeterminate one's is null, and it takes the transition its input
 * allows from the state it meets, if any (a creation that met an existing topic changes nothing). Refusals are never
 * used as observations: a client or a forwarding broker may resend a request whose first copy succeeded, and the copy
 * is then refused (TOPIC_ALREADY_EXISTS, UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS) for the request's own effect.
 */
public final class TopicModel implements Model<Integer, TopicModel.Op, Object> {
    public static final String OK = "ok";

    /** An operation on the topic. */
    public sealed interface Op {
        record Create(int partitions) implements Op {}

        record Delete() implements Op {}

        record Grow(int to) implements Op {}

        record Describe() implements Op {}
    }

    @Override
    public Integer initial() {
        return 0;
    }

    @Override
    public Integer step(Integer state, Op input, Object output) {
        boolean acknowledged = output != null;
        if (input instanceof Op.Describe) return output == null || output.equals(state) ? state : null;
        Integer next = null;
        if (input instanceof Op.Create c && state == 0) next = c.partitions();
        if (input instanceof Op.Delete && state > 0) next = 0;
        if (input instanceof Op.Grow g && state > 0 && state < g.to()) next = g.to();
        // an acknowledged op must have met the state it needs; an indeterminate one may have changed nothing
        return next != null ? next : acknowledged ? null : state;
    }

    @Override
    public String describe(Op input, Object output) {
        String what = input instanceof Op.Create c ? "create with " + c.partitions() + " partitions"
                : input instanceof Op.Grow g ? "grow to " + g.to() + " partitions"
                : input instanceof Op.Delete ? "delete" : "describe";
        if (input instanceof Op.Describe) {
            return what + " → " + (output == null ? "?" : Integer.valueOf(0).equals(output) ? "no such topic" : output + " partitions");
        }
        return what + (output == null ? " (indeterminate)" : " → ok");
    }
}
