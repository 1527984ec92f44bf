"""A home given as a country, a US state or a continent where the old one named a town: at most a flag
(trial11, finding 7). Pure: a word list and a regular expression, no I/O.

"The user lives in France" after "The user lives in Paris" superseded Paris: another value after "lives
in". A country may contain the town — or not (a move from Paris to Spain). Which one would take a
gazetteer (which town lies in which country), which we do not read: a guess either way. What can be told
without one is the *kind* of place: a name of ``REGIONS`` (the countries, the US states, the continents —
a closed list, not a guess) is broader than a place not in it. So a home changed from a place not in
``REGIONS`` to one in it may be the same home said more broadly, and only flags; everything else is left
to the contradiction rules as before: from one country to another ("lives in France" / "lives in
Spain") and from a country to a town (a home said more precisely, "lives in France" / "lives in Lyon":
nothing true is lost if Lyon is in France) still supersede.
"""

from __future__ import annotations

import re

from hindsight.domain.text import plain_apostrophes

_COUNTRIES = (
    *("Afghanistan", "Albania", "Algeria", "Andorra", "Angola", "Argentina", "Armenia", "Australia"),
    *("Austria", "Azerbaijan", "Bahamas", "Bahrain", "Bangladesh", "Barbados", "Belarus", "Belgium"),
    *("Belize", "Benin", "Bhutan", "Bolivia", "Bosnia", "Botswana", "Brazil", "Brunei", "Bulgaria"),
    *("Burkina Faso", "Burundi", "Cambodia", "Cameroon", "Canada", "Cape Verde", "Chad", "Chile", "China"),
    *("Colombia", "Comoros", "Congo", "Costa Rica", "Croatia", "Cuba", "Cyprus", "Czechia"),
    *("Czech Republic", "Denmark", "Djibouti", "Dominica", "Dominican Republic", "Ecuador", "Egypt"),
    *("El Salvador", "Eritrea", "Estonia", "Eswatini", "Ethiopia", "Fiji", "Finland", "France", "Gabon"),
    *("Gambia", "Georgia", "Germany", "Ghana", "Greece", "Grenada", "Guatemala", "Guinea", "Guyana"),
    *("Haiti", "Honduras", "Hungary", "Iceland", "India", "Indonesia", "Iran", "Iraq", "Ireland", "Israel"),
    *("Italy", "Ivory Coast", "Jamaica", "Japan", "Jordan", "Kazakhstan", "Kenya", "Kiribati", "Kosovo"),
    *("Kuwait", "Kyrgyzstan", "Laos", "Latvia", "Lebanon", "Lesotho", "Liberia", "Libya"),
    *("Liechtenstein", "Lithuania", "Luxembourg", "Madagascar", "Malawi", "Malaysia", "Maldives", "Mali"),
    *("Malta", "Mauritania", "Mauritius", "Mexico", "Moldova", "Monaco", "Mongolia", "Montenegro"),
    *("Morocco", "Mozambique", "Myanmar", "Namibia", "Nauru", "Nepal", "Netherlands", "New Zealand"),
    *("Nicaragua", "Niger", "Nigeria", "North Korea", "North Macedonia", "Norway", "Oman", "Pakistan"),
    *("Palau", "Palestine", "Panama", "Papua New Guinea", "Paraguay", "Peru", "Philippines", "Poland"),
    *("Portugal", "Qatar", "Romania", "Russia", "Rwanda", "Samoa", "San Marino", "Saudi Arabia"),
    *("Senegal", "Serbia", "Seychelles", "Sierra Leone", "Singapore", "Slovakia", "Slovenia", "Somalia"),
    *("South Africa", "South Korea", "Korea", "South Sudan", "Spain", "Sri Lanka", "Sudan", "Suriname"),
    *("Sweden", "Switzerland", "Syria", "Taiwan", "Tajikistan", "Tanzania", "Thailand", "Togo", "Tonga"),
    *("Trinidad", "Tunisia", "Turkey", "Türkiye", "Turkmenistan", "Tuvalu", "Uganda", "Ukraine"),
    *("United Arab Emirates", "UAE", "United Kingdom", "UK", "Britain", "Great Britain", "England"),
    *("Scotland", "Wales", "Northern Ireland", "United States", "United States of America", "US", "USA"),
    *("America", "Uruguay", "Uzbekistan", "Vanuatu", "Vatican", "Venezuela", "Vietnam", "Yemen", "Zambia"),
    *("Zimbabwe", "Holland", "U.S", "U.S.A", "U.K"),
)
_US_STATES = (
    *("Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware"),
    *("Florida", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana"),
    *("Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana"),
    *("Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "North Carolina", "North Dakota"),
    *("Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota"),
    *("Tennessee", "Texas", "Utah", "Vermont", "Virginia", "West Virginia", "Wisconsin", "Wyoming"),
)
_CONTINENTS = ("Europe", "Asia", "Africa", "North America", "South America", "Latin America", "Oceania")
REGIONS = frozenset(name.casefold() for name in (*_COUNTRIES, *_US_STATES, *_CONTINENTS))
"""Places broader than a town: the countries (common English names), the US states, the continents.
Not "New York", "Washington" (a city as often as a state), nor "Georgia" taken as a state (it is here as
a country: either way broader than a town)."""

_HOME = re.compile(
    r"\b(?:live[sd]?|living|based|located|reside[sd]?|residing|moved|relocated|settled)\s+(?:to|in|into|at)\s+"
    r"(?:the\s+)?(?P<place>[A-Z][\w.'-]*(?:\s+(?:of\s+)?[A-Z][\w.'-]*){0,3})"
)
"""Where a statement says its subject lives or moved: the capitalised words after the verb."""


def _home(text: str) -> str | None:
    """The place ``text`` says its subject lives in or moved to (case-folded), or None."""
    found = _HOME.search(plain_apostrophes(text))
    return None if found is None else found.group("place").rstrip(".'-").casefold()


def broader_home(new: str, old: str) -> bool:
    """Whether ``new`` gives a home of ``REGIONS`` (a country, a US state, a continent) where ``old`` gave
    one not in it ("The user lives in France" / "The user lives in Paris"): maybe the same home said more
    broadly — the caller only flags it (module docstring)."""
    broad, was = _home(new), _home(old)
    return broad is not None and was is not None and broad in REGIONS and was not in REGIONS
