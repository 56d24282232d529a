import sys
from importlib import _bootstrap

from attack_kit import HookReading, forge_from_frames


def look():
    # Run by the record itself. The import system's helper calls whatever it is handed: with it between this frame and
    # sys._getframe, the frame the guard looks at below ours is the import system's.
    forge_from_frames(_bootstrap._call_with_frames_removed(sys._getframe, 1))


def test_wrong(request):
    request.config.pluginmanager = HookReading(request.config.pluginmanager, look)
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
