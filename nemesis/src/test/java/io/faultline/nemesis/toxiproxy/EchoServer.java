package io.faultline.nemesis.toxiproxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A TCP echo server on 127.0.0.1 that counts the reads of each connection (to see a slicer's pieces). */
final class EchoServer implements AutoCloseable {
    private final ServerSocket socket;
    private final List<AtomicInteger> readsPerConnection = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    EchoServer() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "echo-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    String address() {
        return "127.0.0.1:" + port();
    }

    /** Reads seen by the n-th accepted connection (0-based). */
    int reads(int connection) {
        return readsPerConnection.get(connection).get();
    }

    int connections() {
        return readsPerConnection.size();
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket s = socket.accept();
                open.add(s);
                AtomicInteger reads = new AtomicInteger();
                readsPerConnection.add(reads);
                Thread t = new Thread(() -> echo(s, reads), "echo");
                t.setDaemon(true);
                t.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private static void echo(Socket s, AtomicInteger reads) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) >= 0) {
                reads.incrementAndGet();
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException ignored) {
            // the peer went away
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        for (Socket s : open) s.close();
    }
}
