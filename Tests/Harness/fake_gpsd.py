#!/usr/bin/env python3
'''A stand-in for gpsd on 127.0.0.1, for HeadsUp's gpsd tests: it speaks
enough of gpsd's JSON protocol (gpsd_json(5)) for a client that sends
?WATCH={"enable":true,"json":true}; and reads TPV reports.

    fake_gpsd.py PORT_FILE     # listens on a free port, writes it to PORT_FILE

Then lines on standard input drive it (to the clients that sent ?WATCH):
    fix LAT LON EPH SPEED TRACK   a 3D TPV report, stamped now
    nofix                          a TPV report with mode 1
    junk                           a line that is not JSON
    close                          closes the clients' connections (gpsd restarting)
'''
import json
import os
import selectors
import socket
import sys
import time


def stamp():
    now = time.time()
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(now)) + '.%03dZ' % int((now % 1) * 1000)


class FakeGPSD:
    def __init__(self, port_file):
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(('127.0.0.1', 0))
        self.server.listen(4)
        with open(port_file + '.tmp', 'w') as out:
            out.write(str(self.server.getsockname()[1]))
        os.rename(port_file + '.tmp', port_file)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.server, selectors.EVENT_READ, 'accept')
        self.selector.register(sys.stdin.fileno(), selectors.EVENT_READ, 'command')
        self.watching = []
        self.pending = b''

    def send(self, line):
        for client in list(self.watching):
            try:
                client.sendall(line)
            except OSError:
                self.drop(client)

    def drop(self, client):
        self.selector.unregister(client)
        client.close()
        if client in self.watching:
            self.watching.remove(client)

    def command(self, words):
        if words[:1] == ['fix']:
            lat, lon, eph, speed, track = map(float, words[1:6])
            report = {'class': 'TPV', 'device': '/dev/ttyUSB0', 'mode': 3, 'time': stamp(), 'lat': lat, 'lon': lon,
                      'eph': eph, 'speed': speed, 'track': track}
            self.send((json.dumps(report) + '\n').encode())
        elif words[:1] == ['nofix']:
            self.send((json.dumps({'class': 'TPV', 'device': '/dev/ttyUSB0', 'mode': 1, 'time': stamp()}) + '\n').encode())
        elif words[:1] == ['junk']:
            self.send(b'not json at all\n')
        elif words[:1] == ['close']:
            for client in list(self.watching):
                self.drop(client)

    def run(self):
        while True:
            for key, _ in self.selector.select():
                if key.data == 'accept':
                    client, _ = self.server.accept()
                    client.sendall(b'{"class":"VERSION","release":"3.25","rev":"3.25","proto_major":3,"proto_minor":15}\n')
                    self.selector.register(client, selectors.EVENT_READ, 'client')
                elif key.data == 'client':
                    data = key.fileobj.recv(4096)
                    if not data:
                        self.drop(key.fileobj)
                    elif b'?WATCH' in data:
                        key.fileobj.sendall(b'{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0"}]}\n'
                                            b'{"class":"WATCH","enable":true,"json":true}\n')
                        self.watching.append(key.fileobj)
                else:
                    # Unbuffered: a buffered readline would keep a second command where select cannot see it.
                    data = os.read(sys.stdin.fileno(), 4096)
                    if not data:
                        return
                    self.pending += data
                    while b'\n' in self.pending:
                        line, _, self.pending = self.pending.partition(b'\n')
                        self.command(line.decode().split())


if __name__ == '__main__':
    FakeGPSD(sys.argv[1]).run()
