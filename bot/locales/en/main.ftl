## Games
game-eleven = Eleven
game-two_ten_jack = Two-Ten-Jack
game-fifteen = Fifteen
game-rummy = Rummy
game-mau_mau = Mau-Mau
game-oh_hell = Oh Hell
game-king = King

## Players and seats
level-easy = easy
level-normal = normal
level-strong = strong
computer-name = 🤖 Computer ({ $level })
n-cards = { $n ->
    [one] { $n } card
   *[other] { $n } cards
}
n-tricks = { $n ->
    [one] { $n } trick
   *[other] { $n } tricks
}
n-chips = { $n ->
    [one] { $n } chip
   *[other] { $n } chips
}
n-points = { $n ->
    [one] { $n } point
   *[other] { $n } points
}
bid-of = bid { $n }
deal-points = this deal { $points }
score-of = score <b>{ $score }</b>

## Table
deal-number = deal { $n }
contract-line = Contract: <b>{ $contract }</b>
contract-no_tricks = No tricks
contract-no_hearts = No hearts
contract-no_queens = No queens
contract-no_kings_jacks = No kings or jacks
contract-no_king_of_hearts = No king of hearts
contract-no_last_tricks = No last tricks
contract-robber = Robber
contract-trump = Trumps
contract-lottery = Lottery
trumps-line = Trumps: { $suit }
trumps-turned = Trumps: { $suit } (turned up { $card })
no-trumps = No trumps
bids-total-line = Bids: { $bid } for { $n ->
    [one] { $n } trick
   *[other] { $n } tricks
}
stock-line = Stock: { $n }
stock-top = Stock: { $n }, next card { $card }
discard-line = Discard pile: { $card }
pot-line = Pot: { $n }
meld-line = Meld { $n }: { $cards }
known-line = { $name } holds { $cards }
trick-line = On the table: { $plays }
last-trick-line = Last trick: { $plays } → { $winner }
turn-line = Turn: { $who } ({ $phase })
phase-play = play a card
phase-bid = bid
phase-trump_choice = choose trumps
phase-draw = draw
phase-meld = meld or discard
phase-discard = discard
phase-suit_choice = name a suit
phase-lottery = lottery
phase-fifteen-draw = draw or stand
hand-line = Your hand: { $cards }
drawn-line = Drawn: { $cards }
your-move = <b>Your move.</b>
wait-for = Waiting for { $who }.
button-my-hand = 🃏 My hand
button-private-hand = 💬 Hand in private chat

## Actions
action-draw = Draw
action-take = Take from the pile
action-pass = Pass
action-stand = Stand
action-bid = Bid { $n }
action-trump = Trumps { $suit }
action-suit = Ask for { $suit }
action-card-as = { $card } as { $what }
as-trump = trump
as-spade = spade
action-meld = Meld { $what }
action-lay = Lay off { $what }
action-discard = Discard { $what }
action-done = Done

## Lobby
lobby-title = 🃏 <b>{ $game }</b> — a new table
lobby-seats = Players ({ $n }/{ $max }):
lobby-settings = Settings:
lobby-hint = Press <b>Join</b> to sit down. The creator presses <b>Start</b> when everyone is in.
lobby-hint-private = Invite a friend with a link, or play the computer.
levels-title = Add a computer to { $game } — which level?
settings-title = ⚙️ Settings of { $game }
button-join = ✋ Join
button-leave = 🚪 Leave
button-add-computer = 🤖 Add computer
button-settings = ⚙️ Settings
button-start = ▶️ Start
button-cancel = ✖️ Cancel
button-back = ⬅️ Back
button-invite = ✉️ Invite a friend
button-vs-computer = 🤖 Play the computer
button-open-private = 💬 Open a private chat with me
value-yes = yes
value-no = no
value-last = last trick
value-last_two = last two tricks
value-seventh_and_last = 7th and last tricks
value-trump = trump deals
value-lottery = lottery
value-per_player = one per player
value-single = one
value-one = one
timer-off = off
timer-60 = 1 min
timer-300 = 5 min
timer-86400 = 1 day
option-timer = Turn timer
option-target = Play to
option-dealer_leads = Dealer leads
option-stock_face_up = Stock face up
option-chips = Chips each
option-stake = Ante
option-stand_on_any_card = Stand on any card
option-elder_wins_ties = Non-dealer wins ties
option-deals = Deals
option-deck = Deck
option-hand_size = Cards dealt
option-draw_when_able = May draw when able to play
option-limit = Penalty limit
option-jack_finish_doubles = Ending on a jack doubles
option-seven_draws = 7 makes the next draw
option-eight_skips = 8 skips the next player
option-queen_restricted = Queen: only its king or a jack
option-hook = Hook (dealer may not make bids add up)
option-king_forced = K♥ forced when void
option-last_tricks = Last-trick deal
option-swap_3_4 = Deal 4 before deal 3
option-robber = Robber deal
option-positive = Positive part
option-lottery_rounds = Lotteries

## Result
result-title = 🏁 <b>{ $game }</b> — game over
result-cancelled = ✖️ <b>{ $game }</b> — the game was cancelled
result-winners = { $n ->
    [one] Winner: { $names }
   *[other] Winners: { $names }
}
result-tally = The result is added to this chat's score: /score
button-again = 🔁 Play again
button-score = 📊 Show score

## Menus and commands
menu-title = Which game shall we play?
rules-players = players: { $n }
tally-title = 📊 Score in this chat
tally-title-game = 📊 Score in this chat: { $game }
stats-title = 📊 Your games
tally-empty = No finished games yet.
tally-row = { $place }. { $who } — { $wins ->
    [one] { $wins } win
   *[other] { $wins } wins
} of { $played } · { $points }
welcome =
    👋 Hi! I'm <b>Koloda</b> — I host classic card games: Eleven, Two-Ten-Jack, Fifteen, Rummy, Mau-Mau, Oh Hell and King.

    In a group: /new starts a table. Here: /new starts a duel with a friend or with me.
    /rules tells the rules, /help lists the commands.
help =
    <b>Commands</b>
    /new [game] — start a table (a game menu without a name)
    /join — sit at this chat's table
    /leave — leave the table (a computer takes your seat during play)
    /hand — show your hand
    /table — post the table message again
    /score [game] — this chat's score; /score season [game] — this month's
    /stats — your own games and ratings
    /top [game] — the leaderboard (this chat; all chats in private); /top season [game] — this month's
    /history — the last finished matches here, with their records
    /rules [game] — the rules
    /settings — table settings and language
    /lang — language
    /cancel — cancel this chat's table (creator or admin)
    /daily [game] — today's daily deal (in private); /daily top [game] — its board
lang-menu = Choose a language:
lang-set = Language: English.
joined-private = ✅ You sit at the { $game } table. Your hand will appear here.
duel-ready = ✅ { $name } joined — the duel begins!
invite-text = Forward this link to a friend — it works once, for one day:
    { $link }
no-open-game = There is no table in this chat. Start one with /new.
no-game-of-yours = You do not sit at any table right now.
menu-unknown = I don't know that game. Which one shall we play?
rules-menu = The rules of which game?
rules-unknown = I don't know that game. The rules of which one?
hand-not-dealt = The cards are not dealt yet: they will come in our private chat once the game starts.
hand-in-private = Your hand is in our private chat.
table-reposted = The table message was posted again.
settings-lang = Language: { $language }. Change it with /lang.
cancelled = The table was cancelled.
left = You left the table.
error-generic = Sorry, something went wrong. Please try again.
bad-button = This button is not valid any more.
private-only = Use this in a private chat with me.
group-only = Use this in a group.
need-private = Open a private chat with me first, then press the button again.
bot-removed = The bot was removed from the chat.

## Command descriptions (setMyCommands)
cmd-new = Start a table
cmd-join = Join this chat's table
cmd-leave = Leave the table
cmd-hand = Show my hand
cmd-table = Post the table again
cmd-score = This chat's score
cmd-stats = My games
cmd-rules = Rules of a game
cmd-settings = Settings
cmd-cancel = Cancel the table
cmd-lang = Language
cmd-help = Help
cmd-start = Start

## Refusals (pop-ups)
refusal-no_session = This game does not exist any more.
refusal-not_running = The game is not running.
refusal-not_in_lobby = The game has already started.
refusal-not_a_player = You are not playing at this table.
refusal-other_chat = This button belongs to a table in another chat: press it there.
sender-anonymous-admin = 🙈 You are writing as the group’s anonymous admin, so I cannot tell who you are — and every anonymous admin would be the same player. Turn off “Remain anonymous” in your admin rights, or write from your personal account, to play.
sender-channel = 📣 You are writing as the channel { $chat }, so I cannot tell who you are. To play, write as yourself: switch the “send as” avatar next to the message field back to your account.
refusal-stale = That button is out of date — look at the new message.
refusal-applied = Done: that move was made already.
refusal-not_your_turn = It is not your turn.
refusal-illegal = That move is not allowed.
refusal-chat_busy = This chat already has a table.
refusal-already_seated = You already sit at this table.
refusal-table_full = The table is full.
refusal-too_few_players = Not enough players yet.
refusal-not_creator = Only the creator of the table can do that.
refusal-bad_option = That setting is not allowed here.
refusal-bad_level = Unknown computer level.
refusal-unknown_game = Unknown game.
refusal-invite_invalid = This invitation is not valid.
refusal-invite_expired = This invitation has expired.
refusal-invite_own = That is your own invitation — send it to a friend.
rematch-exists = This match has been played again already — that game is on.
refusal-invite_only = This table seats only the friend its creator invites.
refusal-too_many_tables = You already have as many duels running as one may — finish or cancel one first.

## Illegal moves (pop-ups)
illegal-illegal = That move is not allowed now.
illegal-finished = The game is over.
illegal-not_your_turn = It is not your turn.
illegal-bad_seat = You are not at this table.
illegal-unknown_action = Unknown move.
illegal-must_follow_suit = You must follow suit.
illegal-must_trump = You must play a trump.
illegal-hearts_lead_banned = You may not lead hearts while you hold another suit.
illegal-must_play_king = You must play the K♥.
illegal-must_draw = Draw a card first.
illegal-must_discard = Discard a card to end your turn.
illegal-cannot_discard_taken = You may not discard the card you just took.
illegal-cannot_draw_when_able = You may not draw while you can play.
illegal-must_open_eight = Open with an 8.
illegal-hook = The dealer may not make the bids add up to the number of cards.
illegal-bad_meld = That is not a meld.
illegal-must_play = You can play, so you must.

## Rules summaries
rules-eleven =
    Two players, 32 cards, no trumps. Figures are A, K, Q, J and 10.
    6 cards each; while the stock lasts any card may be played and the higher card of the suit led wins; both draw after a trick. With the stock empty you must follow suit.
    After 16 tricks, 11+ figures score: 11–13 → 1, 14–15 → 2, 16–17 → 3, 18–19 → 4, 20 → 5. A 10–10 draw doubles the next deal.
rules-two_ten_jack =
    2–4 players, 52 cards (3♣ out with 3). Hearts are trumps and A♠ is the top trump.
    Follow suit, else trump, else anything. The stock is face up; after each trick everybody draws.
    2♥ 10♥ J♥ +10, A♥ K♥ Q♥ +5, A♦ K♦ Q♦ J♦ +1, 2♠ 10♠ J♠ −10, A♠ K♠ Q♠ −5.
rules-fifteen =
    Two players; A = 1, pictures 10. Both ante into the pot.
    Draw cards one at a time and stand when you like; over 15 is bust. The total nearer 15 takes the pot; a tie or two busts leave it for the next deal.
rules-rummy =
    2–6 players, 52 cards, A low. Draw from the stock or take the top discard, meld sets (3–4 of a rank) and runs (3+ in a suit), lay off onto melds, then discard.
    Going out scores every opponent's remaining cards (pictures 10, A 1); going out in one turn scores double.
rules-mau_mau =
    2–5 players. Play a card of the same suit or rank as the top of the pile; jacks are wild and name the next suit. Can't play — draw one.
    The first out ends the deal; the others score penalties for their cards (A 11, K 4, Q 3, J 2, others pip). Lowest total wins.
rules-oh_hell =
    2–7 players, 52 cards. Deal 1 gives one card each, deal 2 two, and so on; the turned-up card names trumps, the last deal is no-trump.
    Bid exactly how many tricks you will take; follow suit. Made your bid: bid + 10; missed: 0.
rules-king =
    4 players (or 3). Six negative deals: no tricks, no hearts, no queens, no kings or jacks, no K♥, no last tricks — each card or trick taken costs points. Then the positive part: trump deals (+25 a trick) or the lottery.
    Follow suit; hearts may not be led while you hold another suit where noted. The totals sum to zero; highest wins.

## Game-specific
deal-of = deal { $n } of { $total }
multiplier-line = This deal counts ×{ $n }
suit-line = Suit to follow: { $suit }
total-line = Your total: { $n }
penalty-left-line = Penalties still to take: { $n }
action-jack = { $card } → { $suit }
action-set = Set { $what }
action-run = Run { $what }
action-lay-on = { $card } → meld { $n }
refusal-not_finished = The game is not over yet.
illegal-not_in_hand = You do not hold that card.
illegal-must_declare = Say whether the A♠ is led as a spade or as a trump.
illegal-already_drew = You have already drawn.
illegal-discard_empty = The discard pile is empty.
illegal-no_such_meld = There is no such meld.
illegal-does_not_fit = That card does not fit the meld.
illegal-discard_just_taken = You may not discard the card you just took.
illegal-taken_card_stranded = Then you could not discard — keep another card.
illegal-must_bid = Bid first.
illegal-bidding_over = The bidding is over.
illegal-bid_out_of_range = That bid is out of range.
illegal-must_play_king_of_hearts = You must play the K♥.
illegal-must_name_trumps = Name the trumps first.
illegal-not_playable = That card fits no row.
illegal-must_match_suit_or_rank = Play a card of the same suit or rank.
illegal-must_play_drawn_card = Only the card you just drew may be played now.
illegal-no_suit_to_name = A jack that is your last card names no suit.
illegal-must_name_suit = Name the suit with your jack.
illegal-queen_restricted = On a queen only the king of its suit or a jack.
illegal-turn_over = Your turn is over: stand.
illegal-nothing_to_draw = There is nothing left to draw.
dealer-mark = (dealer)
showdown-won = Showdown: { $hands } → { $winner } takes { $n }
showdown-carried = Showdown: { $hands } → the pot stays
last-deal-void = Last deal: void, nobody scored
last-deal-out = Last deal: { $winner } went out; cards left: { $penalties }
last-deal-rummy = Last deal: { $winner } went rummy in one turn (double); cards left: { $penalties }
timer-line = ⏰ { $timer } per move
last-deal-scores = Last deal: { $scores }
stood-mark = stands
stakes-line = Costs: { $items }
stake-trick = −{ $n } a trick
stake-heart = −{ $n } a heart
stake-queen = −{ $n } a queen
stake-king_jack = −{ $n } a king or jack
stake-king_of_hearts = −{ $n } the { $card }
stake-numbered-trick = −{ $n } trick { $k }
prize-line = Prizes: { $items }
prize-trick = +{ $n } a trick
prize-first = +{ $n } first out
prize-second = +{ $n } second out
seat-released-timeouts = ⏰ You missed three turns in a row, so a computer now plays your seat at the { $game } table.
seat-released-left = 🚪 You left the { $game } table; a computer now plays your seat.

## Hand messages
hand-wait = ⏳ Not your move yet: the table is in the group.
hand-title = 🃏 <b>{ $game }</b>: your cards

## Seats, settings and the turn timer
settings-table = Table settings ({ $game }):
computer-for = 🤖 for { $name }
button-reclaim = ↩️ Take my seat back
button-type-value = ✏️ Type
type-value-prompt = ✏️ { $option }: reply to this message with a whole number from { $low } to { $high }.
type-value-bad = “{ $value }” won't do. { $option }: a whole number from { $low } to { $high }, please.
seat-stood-in = 🤖 A computer plays your seat at the { $game } table. Take it back whenever you like.
timer-minutes = { $n } min
option-timer-minutes = Turn timer in minutes

## Ratings, records, hints and take-backs
result-ratings = 📈 Ratings:
result-rating = { $name } { $before } → { $after }
top-title-chat = 🏆 Leaderboard in this chat
top-title-chat-game = 🏆 Leaderboard in this chat: { $game }
top-title-overall = 🏆 Leaderboard of all chats
top-title-overall-game = 🏆 Leaderboard of all chats: { $game }
top-empty = No rated games yet.
top-row = { $place }. { $name } — { $rating } · { $played ->
        [one] { $played } match
       *[other] { $played } matches
    } · { $wins ->
        [one] { $wins } win
       *[other] { $wins } wins
    }
stats-ratings = 📈 <b>Ratings</b> (all chats):
stats-rating-row = { $game } — { $rating }, #{ $rank } of { $of }
cmd-top = Leaderboard
button-deal = 📜 Deal
button-match-record = 📄 Match record
record-deal-title = 📜 Deal { $n } — { $game }
record-dealer = Dealer: { $name }
record-starter = Turned up: { $card }
record-hands = Hands as dealt:
record-play = Play:
record-trick = { $n }. { $plays } → { $winner }
record-showdown = Showdown: { $hands }
record-void = The deal is void.
record-points = Points: { $points }
record-match-title = Koloda — { $game }, { $date }
record-final = Final scores:
record-caption = 📄 { $game }: the whole match, deal by deal
history-title = 📜 The last finished matches in this chat:
history-row = { $n }. { $game } · { $date } · 🏆 { $winners }
history-empty = No finished matches in this chat yet.
refusal-deal_not_finished = That deal is not finished yet.
refusal-record_players_only = 📜 That match was played in private: its record is for its players only.
refusal-daily_sealed = 🔒 That is someone else's daily deal: its record stays with its player until the day is over (UTC).
cmd-history = Finished matches
button-hint = 💡 Hint
button-hints-on = 💡 Hints: on
button-hints-off = 💡 Hints: off
hint-card = 💡 The computer would play { $move }
hint-action = 💡 The computer would choose: { $move }
result-hints = 💡 Hints used: { $used }
result-unrated = ↩️ A move was taken back, so this match is not rated.
refusal-hints_off = Hints are off at this table.
button-take-back = ↩️ Take back
refusal-takeback_off = Take-backs are only for games against the computer.
refusal-nothing_to_take_back = There is no move of yours to take back in this deal.
hint-failed = 💡 No hint this time — please try again.
refusal-hint_busy = 💡 Still thinking about your last hint — a moment, please.

## Forum topics (a table in the topic it was opened in)

refusal-topic_closed = ⏸ The table waits: its topic in the group is closed.
topic-closed-players = ⏸ The { $game } table waits: its topic in the group was closed. It goes on as soon as the topic is reopened.
topic-reopened-players = ▶️ The { $game } table goes on: its topic is open again.
topic-gone-players = 🗑 The { $game } table was cancelled: its topic in the group was deleted. The match so far is kept in /history.
button-open-table = ↗️ Open the table

## Verifiable deals: the seed's commitment and its reveal (games/verify.py)
seal-line = 🔒 Seed hash: <code>{ $hash }</code>
record-sealed = 🔒 Seed hash: <code>{ $hash }</code> — the seed is shown here when the match ends.
record-seed = 🔑 Seed: <code>{ $seed }</code> (its hash <code>{ $hash }</code> was on the table). Re-deal it:

## Mini App: the table as a picture (bot/miniapp/)
button-app = 🎴 Open the table
miniapp-play = play
miniapp-your-turn = Your turn
miniapp-wait = Waiting for { $name }
miniapp-hand = Your hand
miniapp-trick = On the table
miniapp-last-trick = Last trick
miniapp-spectator = You are watching: only the public table is shown.
miniapp-four-colour = Four-colour suits
miniapp-offline = Reconnecting…
miniapp-timer = Time left: { $time }
miniapp-stock = Stock: { $n }
miniapp-discard = Discard pile
miniapp-trumps = Trumps
miniapp-melds = Melds
miniapp-hint = Hint
miniapp-take-back = Take back
miniapp-finished = The match is over.
miniapp-cancelled = This game was cancelled.
miniapp-lobby = The game has not started yet.
miniapp-theme = Theme
miniapp-refused = Telegram could not confirm who you are: open the table again from the chat.
miniapp-too-many-pages = You have too many card pages open: close some, then open this one again.
miniapp-too-fast = Too many requests at once: wait a moment, then try again.

# ---------------------------------------------------------------- the daily deal
cmd-daily = Today's daily deal
refusal-daily_played = You have played today's deal of this game already.
daily-menu = 📅 <b>Daily deal</b> — one deal a day per game, the same cards for everybody, against strong computers. Pick a game:
daily-title = 📅 <b>Daily deal</b> · { $game } · { $date }
daily-start =
    The same cards for everybody today, against strong computers; you play it once.
    { $what }
daily-what-deal = Your score is this one deal's points.
daily-what-match = Your score is a short match of { $deals } deals (one hand means little in this game).
daily-seal = 🔒 Seed hash: <code>{ $hash }</code> — the seed is shown in the record once the day is over (UTC).
daily-played = You have played today's deal already.
daily-unfinished = It has no score yet: finish it before midnight UTC to get one.
daily-score = Your score: <b>{ $points }</b>
daily-place = Place: <b>{ $place }</b> of { $of }
daily-groups = In your groups: { $places }
daily-group-place = { $place } of { $of }
daily-best = Best today: { $name } — { $points }
daily-next = The next deal comes in { $hours } h { $minutes } min (midnight UTC).
daily-streak = 📅 Daily deal streak: { $current ->
    [one] { $current } day
   *[other] { $current } days
    } (best { $best })
daily-in-group = 📅 The daily deal is played in a private chat with me: send /daily there. Here /daily top shows this group's board.
button-daily-private = 📅 Play the daily deal
daily-board-title = 📅 <b>Daily deal</b> · { $date } — this group's players
daily-board-title-all = 📅 <b>Daily deal</b> · { $date } — everybody
daily-board-game = <b>{ $game }</b>
daily-board-row = { $place }. { $name } — { $points }
daily-board-empty = Nobody has finished today's deal here yet.
daily-board-closes = The board closes at midnight UTC.
daily-post-title = 📅 <b>Daily deal</b> · { $date } — the board is closed. This group's best:
daily-post-row = { $game }: 🏆 { $names } — { $points } ({ $players ->
    [one] { $players } player
   *[other] { $players } players
    })
record-sealed-daily = 🔒 Seed hash: <code>{ $hash }</code> — this is a daily deal: its seed is shown here once the day is over (UTC), when nobody plays these cards any more.

## 📈 Review after a deal (the strong computer looks at the player's own decisions)

button-review = 📈 Review
review-title = 📈 Review of deal { $n } — { $game }, { $name }
review-summary = { $decisions ->
        [one] { $decisions } decision looked at from your own view (your cards, what the table had shown)
       *[other] { $decisions } decisions looked at from your own view (your cards, what the table had shown)
    }.
review-none = ✅ No mistakes: no move cost { $mistake } points or more against the best one.
review-nothing = ✅ Nothing to review: you had no choice to make in this deal.
review-mistake = ⚠️ Mistake
review-blunder = ❌ Blunder
review-at-trick = Trick { $trick }
review-at-decision = Decision { $n }
review-row = • { $where } — { $grade }: { $played } · better { $best }, ≈{ $cost } points
review-unjudged = { $count ->
        [one] ⏳ { $count } decision was left unjudged: the computers were busy.
       *[other] ⏳ { $count } decisions were left unjudged: the computers were busy.
    }
review-thresholds = A mistake costs at least { $mistake } points, a blunder { $blunder } (your deal points against the table's average, estimated over { $worlds } deals that fit what you saw).
review-started = 📈 Reviewing your decisions in deal { $n } — the answer comes in a moment.
review-running = 📈 Still reviewing that deal — a moment, please.
review-failed = 📈 No review this time — please try again.
refusal-review_players_only = 📈 Only the players of that deal can review it.
refusal-review_busy = 📈 Already reviewing another deal of yours — wait for that one first.

## ⚖️ Compare a daily deal (your decisions beside the day's best player's and the computer's)

button-compare = ⚖️ Compare
compare-title = ⚖️ Deal { $n } — { $game }: you, { $name } and the strong computer
compare-title-alone = ⚖️ Deal { $n } — { $game }: you and the strong computer
compare-rival-best = { $name } has the best score of this deal: { $points }.
compare-rival-next = Yours is the best score of this deal; next comes { $name } with { $points } (place { $place }).
compare-alone = Nobody else has played this deal yet: here is the strong computer's choice beside each of yours.
compare-aligned = Decisions are matched by number: once you and { $name } chose differently, your games went apart, so a later decision of theirs was made in another position. The computer's choice is for your position.
compare-same-one = • Decision { $n }: the same choice
compare-same-run = • Decisions { $first }–{ $last }: the same choices
compare-at = Decision { $n }
compare-at-trick = Decision { $n } (trick { $trick })
compare-row = • { $where } — you: { $yours } · { $name }: { $theirs } · 🤖: { $computer }
compare-row-alone = • { $where } — you: { $yours } · 🤖: { $computer }
compare-over = none, their deal was over
compare-hidden = 🂠
compare-hidden-note = 🂠 a card you have not seen: it stays hidden until the day is over (UTC).
compare-unjudged-choice = ⏳
compare-nothing = You had no choice to make in this deal: there is nothing to compare.
compare-started = ⚖️ Comparing your deal { $n } with the others' — the answer comes in a moment.
compare-running = ⚖️ Still comparing that deal — a moment, please.
compare-failed = ⚖️ No comparison this time — please try again.
refusal-compare_not_daily = ⚖️ Only a daily deal can be compared with other players'.
refusal-compare_players_only = ⚖️ Only the player of that daily deal can compare it.
refusal-compare_not_finished = ⚖️ Finish your daily deal first, then compare it.
refusal-compare_busy = ⚖️ A review or comparison of yours is still running — wait for it first.

## Seasons (ratings and the tally per calendar month, UTC)

season-month = { $month ->
        [1] January
        [2] February
        [3] March
        [4] April
        [5] May
        [6] June
        [7] July
        [8] August
        [9] September
        [10] October
        [11] November
       *[12] December
    } { $year }
top-title-chat-season = 🏆 Season { $month } in this chat
top-title-chat-game-season = 🏆 Season { $month } in this chat: { $game }
top-title-overall-season = 🏆 Season { $month } of all chats
top-title-overall-game-season = 🏆 Season { $month } of all chats: { $game }
top-season-note = Everyone starts the month at 1,500. The season ends at midnight UTC on its last day.
tally-title-season = 📊 Score in this chat · season { $month }
tally-title-game-season = 📊 Score in this chat · season { $month }: { $game }
season-post-title = 🏆 <b>Season { $month }</b> is over. This group's champions:
season-post-row = { $game }: 🥇 { $names } — { $rating } ({ $players ->
    [one] { $players } player
   *[other] { $players } players
    })
season-post-next = A new season has begun: /top season
