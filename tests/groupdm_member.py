"""A person in a group DM, as the fake Discord shows it to them.

They see the newest messages of the group DM (the app's interaction answers and
follow-ups, and their own ephemeral messages), can run the app's slash commands only
if they installed the app to their account, and can press any button on the app's
messages whether or not they installed it. Everything goes through the fake, so
Discord's rules (403 for the bot's channel requests, token lifetime, the follow-up
cap) apply as they would on Discord.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.fakediscord import FakeDiscord, Interaction
from tests.fakediscord.models import Message


@dataclass
class GroupDMMember:
    fake: FakeDiscord
    name: str
    channel: int

    @property
    def id(self) -> int:
        return self.fake.user(self.name).id

    @property
    def installed(self) -> bool:
        return self.id in self.fake.state.user_installs

    def install(self) -> None:
        self.fake.install_app(self.name)

    def sees(self, newest: int = 50) -> list[Message]:
        """The newest ``newest`` messages on their screen, oldest first (ephemerals too)."""
        return self.fake.visible_to(self.name, self.channel)[-newest:]

    def app_messages(self, newest: int = 50) -> list[Message]:
        """The app's messages among those (interaction answers and follow-ups)."""
        app = self.fake.application_id
        return [m for m in self.sees(newest) if m.application_id == app]

    def table_message(self) -> Message:
        """The newest NLK table message they see (the app's, public, an embed with the
        table's buttons), as a person finds it: at the bottom."""
        for message in reversed(self.app_messages()):
            if message.visible_to is None and message.embeds and any(
                    (b.custom_id or "").startswith("nlk:") for b in message.buttons()):
                return message
        raise AssertionError(f"{self.name} sees no table message")

    def ephemerals(self) -> list[Message]:
        """Their own ephemeral messages in this group DM, oldest first."""
        return [m for m in self.sees() if m.visible_to == self.id]

    def pings(self) -> list[Message]:
        """Messages that notified them (a mention that was allowed to ping)."""
        return [m for m in self.sees() if self.id in m.pinged_user_ids]

    def latest(self, text: str | None = None) -> Message:
        """The newest message they see, optionally the newest containing ``text``."""
        for message in reversed(self.sees()):
            if text is None or text in message.text():
                return message
        raise AssertionError(f"{self.name} sees no message{f' with {text!r}' if text else ''}")

    async def slash(
        self, command: str, subcommand: str | None = None, options: dict[str, Any] | None = None
    ) -> Interaction:
        """Run ``/command subcommand``; AssertionError unless Discord would offer it to them."""
        return await self.fake.slash(self.name, self.channel, command, subcommand, options)

    async def click(
        self,
        message: Message,
        label: str | None = None,
        *,
        custom_id: str | None = None,
        prefix: str | None = None,
    ) -> Interaction:
        """Press a button on one of the app's messages they can see."""
        if message.application_id != self.fake.application_id:
            raise AssertionError(f"message {message.id} is not the app's")
        if message not in self.sees(newest=10_000):
            raise AssertionError(f"{self.name} cannot see message {message.id}")
        return await self.fake.click(self.name, message, custom_id, label=label, prefix=prefix)


def group_dm(
    fake: FakeDiscord, names: list[str], *, installed: list[str], name: str = ""
) -> list[GroupDMMember]:
    """A group DM of ``names`` (the first owns it); ``installed`` added the app themselves."""
    channel = fake.add_group_dm(list(names), name=name)
    for who in installed:
        fake.install_app(who)
    return [GroupDMMember(fake, who, channel) for who in names]
