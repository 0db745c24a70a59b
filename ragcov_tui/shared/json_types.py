"""The one name for a JSON object whose keys are not a fixed contract.

:data:`JsonObject` is what ``json.loads`` returns for ``{...}``: a stored report or JSON column read
back, a provider's reply, a document this program writes as JSON. Where the keys ARE a contract the
store types them (``store/*_contract.py``, ``store/rows.py``); this alias is for the rest, so that
``dict[str, Any]`` is written once.
"""

from typing import Any

JsonObject = dict[str, Any]
