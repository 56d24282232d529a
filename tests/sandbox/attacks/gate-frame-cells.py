import functools, inspect, posix, types

from attack_kit import forge, the_record

found = []


def test_wrong(request):
    # Run by pytest's own finalizer loop after this test, through C alone: inspect.stack takes the frames itself.
    request.addfinalizer(functools.partial(found.extend, map(inspect.stack, [0])))
    assert 1 + 1 == 3


def test_also_wrong(request):
    # Every function a frame below holds: a closure cell that holds the way out (posix._exit) is rewritten, so that
    # whatever ends the run through it returns instead. Then the record's frame, and its key.
    frame = found[0][0].frame
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if type(value) is not types.FunctionType:
                continue
            for cell in value.__closure__ or ():
                try:
                    if cell.cell_contents is posix._exit:
                        cell.cell_contents = lambda status: None
                except ValueError:
                    pass
        frame = frame.f_back
    forge(the_record(request).gi_frame.f_locals["key"])
    assert 2 + 2 == 5
