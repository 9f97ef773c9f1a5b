"""The rating chart under ``/nlk stats user:``: rising and falling histories draw differently
and their sentences say which; through the fake Discord the chart comes with its alt text,
and a reader who chose text only gets the sentence alone."""

import io
import random

from PIL import Image

from cogs.pictures.chart import CHART_FILE, PLOT, draw_chart, summary
from cogs.pictures.draw import GOLD
from rules.i18n import Lang
from tests.nlk_driver import Driver, running_bot

RISING = [0.9 * i for i in range(1, 31)]
FALLING = [4.0 - 0.5 * i for i in range(1, 31)]


def plot_area(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return image.crop((PLOT.x0 + 1, PLOT.y0 + 1, PLOT.x1, PLOT.y1))


def gold_height(area: Image.Image) -> float:
    """The mean height (0 at the top) of the gold line in the right third of the plot."""
    width, height = area.size
    ys = [y for x in range(2 * width // 3, width) for y in range(height)
          if area.getpixel((x, y)) == GOLD]
    assert ys, "no gold line in the right third"
    return sum(ys) / len(ys) / height


def test_a_rising_and_a_falling_history_draw_differently_and_say_which():
    up, down = plot_area(draw_chart(RISING, "provisional", Lang.EN)), \
        plot_area(draw_chart(FALLING, "provisional", Lang.EN))
    assert up.tobytes() != down.tobytes()
    assert gold_height(up) < 0.3 < 0.7 < gold_height(down)  # ends high, ends low
    assert summary(RISING, Lang.EN) == "rating 27.0, up 18.0 over the last 20 hands"
    assert summary(FALLING, Lang.EN) == "rating -11.0, down 10.0 over the last 20 hands"
    assert summary([0.02, 0.0], Lang.EN) == "rating 0.0, unchanged over the last 2 hands"
    assert summary([3.5], Lang.HU) == ("pontszám: 3,5, az utolsó 1 leosztásban 3,5 ponttal "
                                           "nőtt")
    # The provisional part (the first ten hands) is on its own band, in grey.
    few = plot_area(draw_chart(RISING[:5], "provisional", Lang.EN))
    assert all(few.getpixel((x, y)) != GOLD for x in range(few.width)
               for y in range(few.height))


async def test_stats_of_a_player_show_their_chart_or_its_sentence(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, channel_edits=150):
        driver = Driver(fake, random.Random(3))
        table = await driver.new_table("ann", seats=2)
        await driver.click("bob", table, "Join")
        await driver.click("ann", table, "Start (host)")
        await driver.play_hand(table)
        await driver.click("bob", table, "Next hand")
        await driver.play_hand(table)

        ix = await fake.slash("dee", None, "nlk", "stats", {"user": fake.user("ann").id})
        message = await ix.wait_message()
        embed = message.embeds[0]
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        sentence = fields["Rating at tables of 2 players"]
        assert sentence.startswith("rating ") and "over the last 2 hands" in sentence
        (chart,) = message.attachments
        assert chart.filename == CHART_FILE and chart.description == sentence
        assert embed["image"]["url"] == f"attachment://{CHART_FILE}"
        Image.open(io.BytesIO(chart.data)).load()

        ix = await fake.slash("dee", None, "nlk", "cards", {"style": "text"})
        await ix.wait_response()
        ix = await fake.slash("dee", None, "nlk", "stats", {"user": fake.user("ann").id})
        message = await ix.wait_message()
        assert not message.attachments and "image" not in message.embeds[0]
        assert {f["name"]: f["value"] for f in message.embeds[0]["fields"]}[
            "Rating at tables of 2 players"] == sentence
    fake.assert_clean()
