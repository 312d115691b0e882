# a class list as a Python dict
from collections import OrderedDict

CLASSES = OrderedDict(
    {
        "c000": "Holding some clothes",
        "c001": "Opening a door",
        "c002": "Watching/Reading a book"
    }
)
