"""One app per data folder: a second start hands its bundle to the app that holds the folder, and ends.

The app holding the data folder's lock (rater/storage.py, ``InstanceLock``) also listens on a local socket
named after the folder and the user (:func:`server_name`: a ``QLocalServer``, a Unix socket or a Windows
named pipe, reachable only by this user). A start on the same folder — a double-click on a ``.wmcdp`` file
while the app is open — connects, sends the bundle's absolute path and waits for the app's "ok"; the app
opens it (asking first when a bundle is already open) and raises its window. Without an answer the start
goes on as usual and meets the lock, whose message says what to do.

The message: ``wmcdp-open/1\\n``, then each path (the OS's bytes) followed by a NUL, then a newline; at
most :data:`MAX_MESSAGE` bytes. QtNetwork is imported only when there may be an app to talk to.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from wmcdp_desktop.rater.data_folder import instance_info_path

HEADER = b"wmcdp-open/1\n"
MAX_MESSAGE = 64 * 1024
CONNECT_MS = 1000
ANSWER_MS = 5000
HANDOVER_WAIT_S = 5.0
"""How long a start that met the lock keeps trying to hand its bundle over (the other app may be starting)."""


def server_name(data_dir: Path) -> str:
    """The socket's name for ``data_dir`` and this user (the same folder by another user is another app)."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    key = f"{user}\0{data_dir}".encode("utf-8", "surrogatepass")
    # here: a start with no app running needs no name (hashlib loads OpenSSL, before the first paint)
    from wmcdp_desktop.core.digests import sha256_hex

    return "wmcdp-desktop-" + sha256_hex(key)[:24]


def maybe_running(data_dir: Path) -> bool:
    """Whether an app may hold ``data_dir`` (its lock's note is there; left behind by a crash, it costs one
    refused connection)."""
    return instance_info_path(data_dir).exists()


def encode(paths: list[Path]) -> bytes:
    return HEADER + b"".join(os.fsencode(str(p)) + b"\0" for p in paths) + b"\n"


def decode(data: bytes) -> list[Path] | None:
    """The paths of a whole message; None while it is not whole yet; ValueError for anything else."""
    if not data.startswith(HEADER[: len(data)]) or len(data) > MAX_MESSAGE:
        raise ValueError("not a message of this app")
    if len(data) <= len(HEADER) or not data.endswith(b"\n"):
        return None
    body = data[len(HEADER):-1]
    if body and not body.endswith(b"\0"):
        return None  # a newline inside a path: more to come
    return [Path(os.fsdecode(part)) for part in body.split(b"\0")[:-1]] if body else []


def hand_over(data_dir: Path, paths: list[Path], *, wait_s: float = 0.0) -> bool:
    """Give ``paths`` to the app holding ``data_dir``; True once it said it has them. ``wait_s``: keep trying
    that long while nothing answers (an app that is starting listens a moment after it took the lock)."""
    from PySide6.QtNetwork import QLocalSocket

    message = encode([p.absolute() for p in paths])
    end = time.monotonic() + wait_s
    while True:
        socket = QLocalSocket()
        socket.connectToServer(server_name(data_dir))
        if socket.waitForConnected(CONNECT_MS):
            socket.write(message)
            socket.flush()
            answer = b""
            deadline = time.monotonic() + ANSWER_MS / 1000
            while b"\n" not in answer and time.monotonic() < deadline:
                if socket.bytesAvailable() or socket.waitForReadyRead(100):
                    answer += bytes(socket.readAll().data())
                elif socket.state() != QLocalSocket.LocalSocketState.ConnectedState:
                    break
            socket.abort()
            return answer.startswith(b"ok\n")
        socket.abort()
        if time.monotonic() >= end:
            return False
        time.sleep(0.2)


class InstanceServer(QObject):
    """The running app's end: ``pathsReceived(list[Path])`` for every later start (an empty list: show the
    window)."""

    pathsReceived = Signal(list)

    def __init__(self, data_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        from PySide6.QtNetwork import QLocalServer

        self.name = server_name(data_dir)
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not self.server.listen(self.name):
            # left by an app that died (this app holds the data folder's lock, so no live app owns it)
            QLocalServer.removeServer(self.name)
            self.server.listen(self.name)
        self.server.newConnection.connect(self._accept)

    @property
    def listening(self) -> bool:
        return bool(self.server.isListening())

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while (socket := self.server.nextPendingConnection()) is not None:
            received = bytearray()
            socket.readyRead.connect(lambda s=socket, r=received: self._read(s, r))
            socket.disconnected.connect(socket.deleteLater)

    def _read(self, socket: QObject, received: bytearray) -> None:
        from PySide6.QtNetwork import QLocalSocket

        assert isinstance(socket, QLocalSocket)
        received += bytes(socket.readAll().data())
        try:
            paths = decode(bytes(received))
        except ValueError:
            socket.abort()  # not one of ours: nothing is opened
            return
        if paths is None:
            return
        socket.write(b"ok\n")
        socket.flush()
        socket.disconnectFromServer()
        self.pathsReceived.emit(paths)
