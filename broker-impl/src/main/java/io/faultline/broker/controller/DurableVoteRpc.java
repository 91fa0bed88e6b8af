package io.faultline.broker.controller;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import org.apache.ratis.client.ClientFactory;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyFactory;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.ServerFactory;

/**
 * Ratis' Netty transport with every vote made durable before it leaves the node. Ratis persists a term and vote
 * ({@code raft-meta}) with a forced temporary file and a rename but never fsyncs the directory, so a power cut
 * can undo the rename and the node, back with an older term, could vote twice in one term. The log's own flushes
 * fsync that directory too ({@link RaftLogDirectorySync}), but a vote is sent before any entry of the new term
 * exists: so a granted vote is answered only after the directory fsync, and a candidate fsyncs before it asks for
 * votes (its own vote for itself was persisted just before). Pre-votes persist nothing and are left alone.
 *
 * <p>Ratis instantiates this class by name from {@code raft.rpc.type} ({@link RpcType#valueOf}).
 */
public final class DurableVoteRpc implements RpcType {
    public DurableVoteRpc() { }

    @Override
    public String name() {
        return DurableVoteRpc.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
        return new Factory(new NettyFactory(parameters), DurableFiles.FSYNC);
    }

    /** Netty's factory, with the server's RPC (outgoing votes) and the server it serves (incoming) wrapped. */
    static final class Factory implements ServerFactory, ClientFactory {
        private final NettyFactory netty;
        private final DurableFiles.Syncer syncer;

        Factory(NettyFactory netty, DurableFiles.Syncer syncer) {
            this.netty = netty;
            this.syncer = syncer;
        }

        @Override
        public RpcType getRpcType() {
            return netty.getRpcType();
        }

        @Override
        public RaftServerRpc newRaftServerRpc(RaftServer server) {
            RaftServer answering = wrap(RaftServer.class, server, server, false);
            return wrap(RaftServerRpc.class, netty.newRaftServerRpc(answering), server, true);
        }

        @Override
        public RaftClientRpc newRaftClientRpc(ClientId clientId, RaftProperties properties) {
            return netty.newRaftClientRpc(clientId, properties);
        }

        /** target, with requestVote of a real election fsyncing the group's Raft directory before or after it. */
        <T> T wrap(Class<T> type, T target, RaftServer server, boolean syncBefore) {
            InvocationHandler h = (proxy, method, args) -> {
                RequestVoteRequestProto vote = method.getName().equals("requestVote") && args != null
                        && args.length == 1 && args[0] instanceof RequestVoteRequestProto r && !r.getPreVote() ? r : null;
                if (vote != null && syncBefore) syncVoteOf(server, vote);
                Object result;
                try {
                    result = method.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
                if (vote != null && !syncBefore) syncVoteOf(server, vote);
                return result;
            };
            return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
        }

        private void syncVoteOf(RaftServer server, RequestVoteRequestProto vote) throws IOException {
            RaftGroupId group = RaftGroupId.valueOf(vote.getServerRequest().getRaftGroupId().getId());
            Path current = server.getDivision(group).getRaftStorage().getStorageDir().getCurrentDir().toPath();
            syncer.forceDirectory(current);
        }
    }
}
