'''GeoClue2 on a private bus, for HeadsUp's location tests.

python-dbusmock ships no GeoClue template; this one plays the parts of
GeoClue 2.6/2.7's D-Bus API that HeadsUp uses (src/org.freedesktop.GeoClue2.*.xml):

  Manager  /org/freedesktop/GeoClue2/Manager   GetClient() -> o
  Client   /org/freedesktop/GeoClue2/Client/1  DesktopId, RequestedAccuracyLevel,
           DistanceThreshold, TimeThreshold (rw), Location (o), Active;
           Start(), Stop(); signal LocationUpdated(o old, o new)
  Location .../Location/N  Latitude, Longitude, Accuracy, Altitude, Speed,
           Heading (-1: unknown), Description, Timestamp (tt)

and GeoClue's refusals of Start(): "Geolocation disabled for UID N" when
the user has Location off, "'ID' disallowed, no agent for UID N" when no
agent of the user's registered (both org.freedesktop.DBus.Error.AccessDenied).
Each update makes a new Location object and removes the previous one, as
GeoClue does.

The test drives it on org.freedesktop.GeoClue2.HeadsUpMock (on the manager):
SetEnabled(b), SetAgent(b), EmitFix(d lat, d lon, d accuracy, d speed, d heading),
and reads its call log with org.freedesktop.DBus.Mock.GetCalls.

    python3 -m dbusmock --system -t Tests/Harness/geoclue_template.py
'''
import os
import time

import dbus

from dbusmock import mockobject

BUS_NAME = 'org.freedesktop.GeoClue2'
MAIN_OBJ = '/org/freedesktop/GeoClue2/Manager'
MAIN_IFACE = 'org.freedesktop.GeoClue2.Manager'
SYSTEM_BUS = True

CLIENT_IFACE = 'org.freedesktop.GeoClue2.Client'
LOCATION_IFACE = 'org.freedesktop.GeoClue2.Location'
CONTROL_IFACE = 'org.freedesktop.GeoClue2.HeadsUpMock'
CLIENT_PATH = '/org/freedesktop/GeoClue2/Client/1'

START = f'''
state = objects["{MAIN_OBJ}"].headsup
uid = {os.getuid()}
if not state["agent"]:
    raise dbus.exceptions.DBusException("'%s' disallowed, no agent for UID %d" % (self.Get("{CLIENT_IFACE}", "DesktopId"), uid),
                                        name="org.freedesktop.DBus.Error.AccessDenied")
if not state["enabled"]:
    raise dbus.exceptions.DBusException("Geolocation disabled for UID %d" % uid, name="org.freedesktop.DBus.Error.AccessDenied")
self.UpdateProperties("{CLIENT_IFACE}", {{"Active": dbus.Boolean(True)}})
'''

STOP = f'self.UpdateProperties("{CLIENT_IFACE}", {{"Active": dbus.Boolean(False)}})'


def load(mock, parameters):
    mock.headsup = {'enabled': bool(parameters.get('enabled', True)), 'agent': bool(parameters.get('agent', True)), 'fixes': 0}
    mock.AddProperties(MAIN_IFACE, {'InUse': False, 'AvailableAccuracyLevel': dbus.UInt32(8)})


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='o')
def GetClient(self):
    if CLIENT_PATH not in mockobject.objects:
        self.AddObject(CLIENT_PATH, CLIENT_IFACE, {
            'Location': dbus.ObjectPath('/'),
            'DistanceThreshold': dbus.UInt32(0),
            'TimeThreshold': dbus.UInt32(0),
            'DesktopId': '',
            'RequestedAccuracyLevel': dbus.UInt32(0),
            'Active': False,
        }, [('Start', '', '', START), ('Stop', '', '', STOP)])
    return dbus.ObjectPath(CLIENT_PATH)


@dbus.service.method(CONTROL_IFACE, in_signature='b', out_signature='')
def SetEnabled(self, enabled):
    self.headsup['enabled'] = bool(enabled)


@dbus.service.method(CONTROL_IFACE, in_signature='b', out_signature='')
def SetAgent(self, agent):
    self.headsup['agent'] = bool(agent)


@dbus.service.method(CONTROL_IFACE, in_signature='ddddd', out_signature='b')
def EmitFix(self, latitude, longitude, accuracy, speed, heading):
    '''A new Location object and LocationUpdated(old, new), as GeoClue sends each fix; false while no client runs.'''
    client = mockobject.objects.get(CLIENT_PATH)
    if client is None or not client.Get(CLIENT_IFACE, 'Active'):
        return False
    self.headsup['fixes'] += 1
    path = f'{CLIENT_PATH}/Location/{self.headsup["fixes"]}'
    now = time.time()
    self.AddObject(path, LOCATION_IFACE, {
        'Latitude': dbus.Double(latitude),
        'Longitude': dbus.Double(longitude),
        'Accuracy': dbus.Double(accuracy),
        'Altitude': dbus.Double(-1.7976931348623157e308),
        'Speed': dbus.Double(speed),
        'Heading': dbus.Double(heading),
        'Description': '',
        'Timestamp': dbus.Struct((dbus.UInt64(int(now)), dbus.UInt64(int((now % 1) * 1e6))), signature='tt'),
    }, [])
    old = client.Get(CLIENT_IFACE, 'Location')
    # Written directly: dbusmock's UpdateProperties cannot wrap an object path (0.28).
    client.props[CLIENT_IFACE]['Location'] = dbus.ObjectPath(path)
    client.EmitSignal(CLIENT_IFACE, 'LocationUpdated', 'oo', [old, dbus.ObjectPath(path)])
    if old != '/' and old in mockobject.objects:
        self.RemoveObject(old)
    return True
