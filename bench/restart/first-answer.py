#!/usr/bin/env python3
"""Times a server's start in two parts: until it accepts a connection, and until it answers.

Usage: bench/restart/first-answer.py PORT COMMAND [ARGS...]
Starts COMMAND (which must listen on 127.0.0.1:PORT), connects every 2 ms from one process (no
curl spawned per try, which would take a core of its own), sends one HTTP/1.1 GET on the first
connection it gets and prints "connect N answer N gap N" in milliseconds since the start, then
kills COMMAND. Gives up after 30 s. docs/benchmarks.md ("Netty's JFR events off") used it to find
what a started process does between accepting its first connection and answering it, e.g.:

  bench/restart/first-answer.py 27172 java -cp "bench/target/anteroom-bench-*.jar:DIST/lib/*" \
      io.anteroom.bench.StartFloor vertx 27172
"""
import socket
import subprocess
import sys
import time

if len(sys.argv) < 3:
    sys.exit(__doc__)
port = int(sys.argv[1])
t0 = time.monotonic()
server = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
connected = None
answered = None
try:
    while answered is None and time.monotonic() - t0 < 30:
        if server.poll() is not None:
            sys.exit(f"the server exited with {server.returncode} before it answered")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                if connected is None:
                    connected = time.monotonic() - t0
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if s.recv(64):
                    answered = time.monotonic() - t0
        except OSError:
            time.sleep(0.002)
finally:
    server.kill()
    server.wait()
if answered is None:
    sys.exit("no answer within 30 s")
print(f"connect {connected * 1000:.0f} answer {answered * 1000:.0f} gap {(answered - connected) * 1000:.0f}")
