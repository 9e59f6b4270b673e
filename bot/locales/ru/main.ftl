## Игры
game-eleven = Одиннадцать
game-two_ten_jack = Двойка — десятка — валет
game-fifteen = Пятнадцать
game-rummy = Рамми
game-mau_mau = Мау-мау
game-oh_hell = Пекло
game-king = Кинг

## Игроки и места
level-easy = лёгкий
level-normal = средний
level-strong = сильный
computer-name = 🤖 Компьютер ({ $level })
n-cards = { $n ->
    [one] { $n } карта
    [few] { $n } карты
   *[many] { $n } карт
}
n-tricks = { $n ->
    [one] { $n } взятка
    [few] { $n } взятки
   *[many] { $n } взяток
}
n-chips = { $n ->
    [one] { $n } фишка
    [few] { $n } фишки
   *[many] { $n } фишек
}
n-points = { $n ->
    [one] { $n } очко
    [few] { $n } очка
   *[many] { $n } очков
}
bid-of = заказ { $n }
deal-points = в сдаче { $points }
score-of = счёт <b>{ $score }</b>

## Стол
deal-number = сдача { $n }
contract-line = Игра: <b>{ $contract }</b>
contract-no_tricks = Не брать взяток
contract-no_hearts = Не брать червей
contract-no_queens = Не брать дам
contract-no_kings_jacks = Не брать королей и валетов
contract-no_king_of_hearts = Не брать червонного короля
contract-no_last_tricks = Не брать последних взяток
contract-robber = Разбойник
contract-trump = Козыри
contract-lottery = Лотерея
trumps-line = Козыри: { $suit }
trumps-turned = Козыри: { $suit } (открыта { $card })
no-trumps = Без козырей
bids-total-line = Заявки: { $bid } из { $n ->
    [one] { $n } взятки
   *[other] { $n } взяток
}
stock-line = Колода: { $n }
stock-top = Колода: { $n }, сверху { $card }
discard-line = Сброс: { $card }
pot-line = Банк: { $n }
meld-line = Комбинация { $n }: { $cards }
known-line = У игрока { $name }: { $cards }
trick-line = На столе: { $plays }
last-trick-line = Прошлая взятка: { $plays } → { $winner }
turn-line = Ход: { $who } ({ $phase })
phase-play = ход картой
phase-bid = заказ
phase-trump_choice = выбор козыря
phase-draw = взять карту
phase-meld = выложить или сбросить
phase-discard = сброс
phase-suit_choice = назвать масть
phase-lottery = лотерея
phase-fifteen-draw = взять или хватит
hand-line = Ваши карты: { $cards }
drawn-line = Прикуплено: { $cards }
your-move = <b>Ваш ход.</b>
wait-for = Ждём: { $who }.
button-my-hand = 🃏 Мои карты
button-private-hand = 💬 Карты в личке

## Действия
action-draw = Взять
action-take = Взять из сброса
action-pass = Пас
action-stand = Хватит
action-bid = Заказ { $n }
action-trump = Козыри { $suit }
action-suit = Заказать { $suit }
action-card-as = { $card } как { $what }
as-trump = козырь
as-spade = пика
action-meld = Выложить { $what }
action-lay = Подложить { $what }
action-discard = Сбросить { $what }
action-done = Готово

## Лобби
lobby-title = 🃏 <b>{ $game }</b> — новый стол
lobby-seats = Игроки ({ $n }/{ $max }):
lobby-settings = Настройки:
lobby-hint = Нажмите <b>Сесть</b>, чтобы играть. Создатель стола нажимает <b>Начать</b>, когда все в сборе.
lobby-hint-private = Пригласите друга ссылкой или сыграйте с компьютером.
levels-title = Добавить компьютер в { $game } — какой уровень?
settings-title = ⚙️ Настройки: { $game }
button-join = ✋ Сесть
button-leave = 🚪 Встать
button-add-computer = 🤖 Добавить компьютер
button-settings = ⚙️ Настройки
button-start = ▶️ Начать
button-cancel = ✖️ Отменить
button-back = ⬅️ Назад
button-invite = ✉️ Пригласить друга
button-vs-computer = 🤖 Играть с компьютером
button-open-private = 💬 Открыть личный чат со мной
value-yes = да
value-no = нет
value-last = последняя взятка
value-last_two = две последние взятки
value-seventh_and_last = седьмая и последняя
value-trump = козырные сдачи
value-lottery = лотерея
value-per_player = по одной на игрока
value-single = одна
value-one = одна
timer-off = нет
timer-60 = 1 мин
timer-300 = 5 мин
timer-86400 = 1 день
option-timer = Время на ход
option-target = Игра до
option-dealer_leads = Первым ходит сдающий
option-stock_face_up = Колода открыта
option-chips = Фишек у каждого
option-stake = Ставка
option-stand_on_any_card = Можно остановиться на любой карте
option-elder_wins_ties = Ничья в пользу старшего
option-deals = Сдач
option-deck = Колода
option-hand_size = Карт на руки
option-draw_when_able = Можно брать, имея ход
option-limit = Предел штрафа
option-jack_finish_doubles = Конец на валете удваивает
option-seven_draws = Семёрка — следующий берёт
option-eight_skips = Восьмёрка — пропуск хода
option-queen_restricted = На даму — только её король или валет
option-hook = Крюк (сдающий не может уравнять заказы)
option-king_forced = Червонный король обязателен
option-last_tricks = Последние взятки
option-swap_3_4 = 4-я сдача перед 3-й
option-robber = Разбойник
option-positive = Положительная часть
option-lottery_rounds = Лотереи

## Итог
result-title = 🏁 <b>{ $game }</b> — игра окончена
result-cancelled = ✖️ <b>{ $game }</b> — игра отменена
result-winners = { $n ->
    [one] Победитель: { $names }
   *[other] Победители: { $names }
}
result-tally = Результат добавлен в счёт этого чата: /score
button-again = 🔁 Ещё раз
button-score = 📊 Счёт

## Меню и команды
menu-title = Во что играем?
rules-players = игроков: { $n }
tally-title = 📊 Счёт этого чата
tally-title-game = 📊 Счёт этого чата: { $game }
stats-title = 📊 Ваши игры
tally-empty = Законченных игр пока нет.
tally-row = { $place }. { $who } — { $wins ->
    [one] { $wins } победа
    [few] { $wins } победы
   *[many] { $wins } побед
} из { $played } · { $points }
welcome =
    👋 Привет! Я <b>Колода</b> — играю в классические карточные игры: Одиннадцать, Двойка — десятка — валет, Пятнадцать, Рамми, Мау-мау, Пекло и Кинг.

    В группе: /new открывает стол. Здесь: /new — партия вдвоём с другом или со мной.
    /rules — правила, /help — список команд.
help =
    <b>Команды</b>
    /new [игра] — открыть стол (без названия — меню игр)
    /join — сесть за стол этого чата
    /leave — встать из-за стола (в игре вас заменит компьютер)
    /hand — показать ваши карты
    /table — показать стол заново
    /score [игра] — счёт этого чата; /score season [игра] — за этот месяц
    /stats — ваши игры и рейтинг
    /top [игра] — рейтинг игроков (этого чата; в личном чате — всех); /top season [игра] — за этот месяц
    /history — последние законченные партии здесь и их записи
    /rules [игра] — правила
    /settings — настройки стола и язык
    /lang — язык
    /cancel — отменить стол (создатель или админ)
    /daily [игра] — сдача дня (в личном чате); /daily top [игра] — её таблица
lang-menu = Выберите язык:
lang-set = Язык: русский.
joined-private = ✅ Вы за столом «{ $game }». Ваши карты появятся здесь.
duel-ready = ✅ { $name } принял приглашение — играем!
invite-text = Перешлите эту ссылку другу — она одноразовая и действует сутки:
    { $link }
no-open-game = В этом чате нет стола. Откройте его командой /new.
no-game-of-yours = Вы сейчас не сидите ни за одним столом.
menu-unknown = Такой игры я не знаю. Во что играем?
rules-menu = Правила какой игры?
rules-unknown = Такой игры я не знаю. Правила какой игры?
hand-not-dealt = Карты ещё не розданы: они придут в наш личный чат, когда игра начнётся.
hand-in-private = Ваши карты — в нашем личном чате.
table-reposted = Стол показан заново.
settings-lang = Язык: { $language }. Сменить: /lang.
cancelled = Стол отменён.
left = Вы встали из-за стола.
error-generic = Извините, что-то пошло не так. Попробуйте ещё раз.
bad-button = Эта кнопка больше не действует.
private-only = Это работает в личном чате со мной.
group-only = Это работает в группе.
need-private = Сначала откройте личный чат со мной, затем нажмите кнопку снова.
bot-removed = Бота удалили из чата.

## Описания команд (setMyCommands)
cmd-new = Открыть стол
cmd-join = Сесть за стол
cmd-leave = Встать из-за стола
cmd-hand = Мои карты
cmd-table = Показать стол заново
cmd-score = Счёт чата
cmd-stats = Мои игры
cmd-rules = Правила игры
cmd-settings = Настройки
cmd-cancel = Отменить стол
cmd-lang = Язык
cmd-help = Помощь
cmd-start = Начать

## Отказы (всплывающие)
refusal-no_session = Этой игры больше нет.
refusal-not_running = Игра не идёт.
refusal-not_in_lobby = Игра уже началась.
refusal-not_a_player = Вы не играете за этим столом.
refusal-other_chat = Эта кнопка от стола в другом чате — нажмите её там.
sender-anonymous-admin = 🙈 Вы пишете как анонимный администратор группы — я не вижу, кто вы, а все анонимные администраторы для меня один игрок. Чтобы играть, отключите «Анонимность» в своих правах администратора или напишите со своего личного аккаунта.
sender-channel = 📣 Вы пишете от имени канала { $chat } — я не вижу, кто вы. Чтобы играть, пишите от себя: переключите аватар «отправить как» рядом с полем ввода на свой аккаунт.
refusal-stale = Кнопка устарела — смотрите новое сообщение.
refusal-applied = Готово: этот ход уже сделан.
refusal-not_your_turn = Сейчас не ваш ход.
refusal-illegal = Так ходить нельзя.
refusal-chat_busy = В этом чате уже есть стол.
refusal-already_seated = Вы уже за этим столом.
refusal-table_full = Стол заполнен.
refusal-too_few_players = Пока мало игроков.
refusal-not_creator = Это может только создатель стола.
refusal-bad_option = Такая настройка здесь недопустима.
refusal-bad_level = Неизвестный уровень компьютера.
refusal-unknown_game = Неизвестная игра.
refusal-invite_invalid = Приглашение недействительно.
refusal-invite_expired = Срок приглашения истёк.
refusal-invite_own = Это ваше собственное приглашение — отправьте его другу.
rematch-exists = Эту партию уже начали заново — та игра идёт.
refusal-invite_only = За этот стол садится только друг, которого пригласил создатель.
refusal-too_many_tables = У вас уже идёт столько партий, сколько можно, — закончите или отмените одну.

## Недопустимые ходы (всплывающие)
illegal-illegal = Сейчас так ходить нельзя.
illegal-finished = Игра окончена.
illegal-not_your_turn = Сейчас не ваш ход.
illegal-bad_seat = Вы не за этим столом.
illegal-unknown_action = Неизвестный ход.
illegal-must_follow_suit = Нужно ходить в масть.
illegal-must_trump = Нужно бить козырем.
illegal-hearts_lead_banned = Нельзя ходить с червей, пока есть другие масти.
illegal-must_play_king = Нужно сыграть червонного короля.
illegal-must_draw = Сначала возьмите карту.
illegal-must_discard = Сбросьте карту, чтобы закончить ход.
illegal-cannot_discard_taken = Нельзя сбросить только что взятую карту.
illegal-cannot_draw_when_able = Нельзя брать карту, когда есть ход.
illegal-must_open_eight = Начните с восьмёрки.
illegal-hook = Сдающий не может заказать так, чтобы сумма заказов равнялась числу карт.
illegal-bad_meld = Это не комбинация.
illegal-must_play = У вас есть ход — нужно ходить.

## Правила кратко
rules-eleven =
    Двое, 32 карты, без козырей. Фигуры — тузы, короли, дамы, валеты и десятки.
    По 6 карт; пока есть колода, можно ходить любой картой, взятку берёт старшая карта масти хода; после взятки оба добирают. Когда колода кончилась — ходить в масть.
    После 16 взяток очки получает набравший 11+ фигур: 11–13 → 1, 14–15 → 2, 16–17 → 3, 18–19 → 4, 20 → 5. Ничья 10–10 удваивает следующую сдачу.
rules-two_ten_jack =
    2–4 игрока, 52 карты (втроём без 3♣). Черви — козыри, туз пик — старший козырь.
    Ходить в масть, иначе козырем, иначе любой картой. Колода открыта; после взятки добирают все.
    2♥ 10♥ В♥ +10, Т♥ К♥ Д♥ +5, Т♦ К♦ Д♦ В♦ +1, 2♠ 10♠ В♠ −10, Т♠ К♠ Д♠ −5.
rules-fifteen =
    Двое; туз = 1, картинки по 10. Оба ставят в банк.
    Берите карты по одной и остановитесь, когда хотите; больше 15 — перебор. Банк берёт сумма ближе к 15; при равенстве или двух переборах банк остаётся на следующую сдачу.
rules-rummy =
    2–6 игроков, 52 карты, туз младший. Возьмите карту из колоды или верхнюю из сброса, выкладывайте комбинации (3–4 одного достоинства) и последовательности (3+ одной масти), подкладывайте к ним, затем сбросьте карту.
    Кончивший получает сумму карт соперников (картинки 10, туз 1); «скатерть» — всё за один ход — вдвое.
rules-mau_mau =
    2–5 игроков. Кладите карту той же масти или того же достоинства, что и верхняя в сбросе; валет кладётся на всё и заказывает масть. Нечем ходить — возьмите карту.
    Первый избавившийся от карт заканчивает сдачу; остальные получают штраф за карты на руках (Т 11, К 4, Д 3, В 2, прочие по номиналу). Побеждает наименьшая сумма.
rules-oh_hell =
    2–7 игроков, 52 карты. В первой сдаче по одной карте, во второй по две и так далее; открытая карта задаёт козырь, последняя сдача — без козырей.
    Закажите точное число взяток; ходить в масть. Выполнили заказ — заказ + 10, нет — 0.
rules-king =
    Четверо (или трое). Шесть отрицательных сдач: не брать взяток, червей, дам, королей и валетов, червонного короля, последних взяток — каждая взятая карта или взятка стоит штрафа. Затем положительная часть: козырные сдачи (+25 за взятку) или лотерея.
    Ходить в масть; в некоторых сдачах нельзя ходить с червей, пока есть другие масти. Сумма счетов равна нулю; побеждает наибольший.

## Game-specific
deal-of = сдача { $n } из { $total }
multiplier-line = Эта сдача идёт ×{ $n }
suit-line = Масть: { $suit }
total-line = Ваша сумма: { $n }
penalty-left-line = Ещё штрафа в сдаче: { $n }
action-jack = { $card } → { $suit }
action-set = Набор { $what }
action-run = Ряд { $what }
action-lay-on = { $card } → к { $n }
refusal-not_finished = Игра ещё не окончена.
illegal-not_in_hand = У вас нет этой карты.
illegal-must_declare = Скажите, как ходите тузом пик: пикой или козырем.
illegal-already_drew = Вы уже взяли карту.
illegal-discard_empty = Сброс пуст.
illegal-no_such_meld = Такой комбинации нет.
illegal-does_not_fit = Эта карта не подходит к комбинации.
illegal-discard_just_taken = Нельзя сбросить только что взятую карту.
illegal-taken_card_stranded = Тогда нечего будет сбросить — оставьте другую карту.
illegal-must_bid = Сначала заказ.
illegal-bidding_over = Заказы уже сделаны.
illegal-bid_out_of_range = Такой заказ невозможен.
illegal-must_play_king_of_hearts = Нужно сыграть червонного короля.
illegal-must_name_trumps = Сначала назовите козыри.
illegal-not_playable = Эта карта не подходит ни к одному ряду.
illegal-must_match_suit_or_rank = Нужна карта той же масти или того же достоинства.
illegal-must_play_drawn_card = Сейчас можно сыграть только взятую карту.
illegal-no_suit_to_name = Последний валет масть не заказывает.
illegal-must_name_suit = Закажите масть вашим валетом.
illegal-queen_restricted = На даму — только король её масти или валет.
illegal-turn_over = Ваш ход окончен: хватит.
illegal-nothing_to_draw = Брать больше нечего.
dealer-mark = (сдаёт)
showdown-won = Вскрытие: { $hands } → банк берёт { $winner } ({ $n })
showdown-carried = Вскрытие: { $hands } → банк остаётся
last-deal-void = Прошлая сдача не состоялась, очков нет
last-deal-out = Прошлая сдача: вышел { $winner }; осталось на руках: { $penalties }
last-deal-rummy = Прошлая сдача: «скатерть» у игрока { $winner } (вдвойне); осталось на руках: { $penalties }
timer-line = ⏰ { $timer } на ход
last-deal-scores = Прошлая сдача: { $scores }
stood-mark = хватит
stakes-line = Штрафы: { $items }
stake-trick = −{ $n } за взятку
stake-heart = −{ $n } за черву
stake-queen = −{ $n } за даму
stake-king_jack = −{ $n } за короля или валета
stake-king_of_hearts = −{ $n } за { $card }
stake-numbered-trick = −{ $n } за { $k }-ю взятку
prize-line = Призы: { $items }
prize-trick = +{ $n } за взятку
prize-first = +{ $n } первому вышедшему
prize-second = +{ $n } второму вышедшему
seat-released-timeouts = ⏰ Вы пропустили три хода подряд, поэтому за вас теперь играет компьютер ({ $game }).
seat-released-left = 🚪 Вы вышли из-за стола ({ $game }); за вас теперь играет компьютер.

## Hand messages
hand-wait = ⏳ Пока не ваш ход: стол — в группе.
hand-title = 🃏 <b>{ $game }</b>: ваши карты

## Seats, settings and the turn timer
settings-table = Настройки стола ({ $game }):
computer-for = 🤖 за { $name }
button-reclaim = ↩️ Вернуться за стол
button-type-value = ✏️ Ввести
type-value-prompt = ✏️ { $option }: ответьте на это сообщение целым числом от { $low } до { $high }.
type-value-bad = «{ $value }» не подходит. { $option }: нужно целое число от { $low } до { $high }.
seat-stood-in = 🤖 За вас за столом ({ $game }) играет компьютер. Вернуться можно в любой момент.
timer-minutes = { $n } мин
option-timer-minutes = Время на ход в минутах

## Ratings, records, hints and take-backs
result-ratings = 📈 Рейтинг:
result-rating = { $name } { $before } → { $after }
top-title-chat = 🏆 Рейтинг этого чата
top-title-chat-game = 🏆 Рейтинг этого чата: { $game }
top-title-overall = 🏆 Рейтинг по всем чатам
top-title-overall-game = 🏆 Рейтинг по всем чатам: { $game }
top-empty = Рейтинговых игр пока нет.
top-row = { $place }. { $name } — { $rating } · { $played ->
        [one] { $played } матч
        [few] { $played } матча
       *[many] { $played } матчей
    } · { $wins ->
        [one] { $wins } победа
        [few] { $wins } победы
       *[many] { $wins } побед
    }
stats-ratings = 📈 <b>Рейтинг</b> (все чаты):
stats-rating-row = { $game } — { $rating }, { $rank }-е место из { $of }
cmd-top = Рейтинг
button-deal = 📜 Сдача
button-match-record = 📄 Запись партии
record-deal-title = 📜 Сдача { $n } — { $game }
record-dealer = Сдавал: { $name }
record-starter = Открыта карта: { $card }
record-hands = Карты при сдаче:
record-play = Ход игры:
record-trick = { $n }. { $plays } → { $winner }
record-showdown = Вскрытие: { $hands }
record-void = Сдача не состоялась.
record-points = Очки: { $points }
record-match-title = Колода — { $game }, { $date }
record-final = Итоговый счёт:
record-caption = 📄 { $game }: вся партия, сдача за сдачей
history-title = 📜 Последние законченные партии в этом чате:
history-row = { $n }. { $game } · { $date } · 🏆 { $winners }
history-empty = В этом чате ещё нет законченных партий.
refusal-deal_not_finished = Эта сдача ещё не закончена.
refusal-record_players_only = 📜 Эта партия сыграна в личном чате: её запись видят только её игроки.
refusal-daily_sealed = 🔒 Это чужая сдача дня: её запись видит только её игрок, пока не кончится день (UTC).
cmd-history = Законченные партии
button-hint = 💡 Подсказка
button-hints-on = 💡 Подсказки: вкл.
button-hints-off = 💡 Подсказки: выкл.
hint-card = 💡 Компьютер сыграл бы { $move }
hint-action = 💡 Компьютер выбрал бы: { $move }
result-hints = 💡 Подсказок взято: { $used }
result-unrated = ↩️ Ход был взят назад, поэтому партия не идёт в рейтинг.
refusal-hints_off = За этим столом подсказки выключены.
button-take-back = ↩️ Вернуть ход
refusal-takeback_off = Ходы можно возвращать только в игре с компьютером.
refusal-nothing_to_take_back = В этой сдаче нет вашего хода, который можно вернуть.
hint-failed = 💡 Подсказки сейчас нет — попробуйте ещё раз.
refusal-hint_busy = 💡 Ещё думаю над прошлой подсказкой — минутку.

## Forum topics (a table in the topic it was opened in)

refusal-topic_closed = ⏸ Стол ждёт: его тема в группе закрыта.
topic-closed-players = ⏸ Стол «{ $game }» ждёт: его тему в группе закрыли. Игра продолжится, как только тему откроют снова.
topic-reopened-players = ▶️ Стол «{ $game }» снова играет: его тема открыта.
topic-gone-players = 🗑 Стол «{ $game }» отменён: его тему в группе удалили. Сыгранное сохранено в /history.
button-open-table = ↗️ Открыть стол

## Verifiable deals: the seed's commitment and its reveal (games/verify.py)
seal-line = 🔒 Хеш сида: <code>{ $hash }</code>
record-sealed = 🔒 Хеш сида: <code>{ $hash }</code> — сам сид появится здесь, когда матч закончится.
record-seed = 🔑 Сид: <code>{ $seed }</code> (его хеш <code>{ $hash }</code> был на столе). Пересдать его:

## Mini App: стол в картинках (bot/miniapp/)
button-app = 🎴 Открыть стол
miniapp-play = сыграть
miniapp-your-turn = Ваш ход
miniapp-wait = Ждём: { $name }
miniapp-hand = Ваши карты
miniapp-trick = На столе
miniapp-last-trick = Прошлая взятка
miniapp-spectator = Вы смотрите со стороны: видно только то, что открыто всем.
miniapp-four-colour = Четыре цвета мастей
miniapp-offline = Переподключаемся…
miniapp-timer = Осталось: { $time }
miniapp-stock = Колода: { $n }
miniapp-discard = Сброс
miniapp-trumps = Козыри
miniapp-melds = Комбинации
miniapp-hint = Подсказка
miniapp-take-back = Вернуть ход
miniapp-finished = Матч окончен.
miniapp-cancelled = Игра отменена.
miniapp-lobby = Игра ещё не началась.
miniapp-theme = Тема
miniapp-refused = Telegram не подтвердил, кто вы: откройте стол из чата ещё раз.
miniapp-too-many-pages = У вас открыто слишком много страниц с картами: закройте лишние и откройте эту снова.
miniapp-too-fast = Слишком много запросов сразу: подождите немного и попробуйте снова.

# ---------------------------------------------------------------- сдача дня
cmd-daily = Сдача дня
refusal-daily_played = Сегодняшнюю сдачу этой игры вы уже сыграли.
daily-menu = 📅 <b>Сдача дня</b> — каждый день по сдаче в каждой игре, одни и те же карты у всех, против сильных компьютеров. Выберите игру:
daily-title = 📅 <b>Сдача дня</b> · { $game } · { $date }
daily-start =
    Сегодня у всех одни и те же карты, соперники — сильные компьютеры; сыграть можно один раз.
    { $what }
daily-what-deal = Ваш результат — очки этой одной сдачи.
daily-what-match = Ваш результат — короткий матч из { $deals } сдач (одна раздача в этой игре мало что значит).
daily-seal = 🔒 Хеш сида: <code>{ $hash }</code> — сам сид появится в записи, когда день закончится (UTC).
daily-played = Сегодняшнюю сдачу вы уже сыграли.
daily-unfinished = Результата пока нет: доиграйте сдачу до полуночи UTC.
daily-score = Ваш результат: <b>{ $points }</b>
daily-place = Место: <b>{ $place }</b> из { $of }
daily-groups = В ваших группах: { $places }
daily-group-place = { $place } из { $of }
daily-best = Лучший сегодня: { $name } — { $points }
daily-next = Следующая сдача через { $hours } ч { $minutes } мин (в полночь UTC).
daily-streak = 📅 Серия сдач дня: { $current ->
    [one] { $current } день
    [few] { $current } дня
   *[other] { $current } дней
    } (лучшая — { $best })
daily-in-group = 📅 Сдачу дня играют в личном чате со мной: отправьте там /daily. Здесь /daily top покажет таблицу этой группы.
button-daily-private = 📅 Сыграть сдачу дня
daily-board-title = 📅 <b>Сдача дня</b> · { $date } — игроки этой группы
daily-board-title-all = 📅 <b>Сдача дня</b> · { $date } — все игроки
daily-board-game = <b>{ $game }</b>
daily-board-row = { $place }. { $name } — { $points }
daily-board-empty = Здесь сегодняшнюю сдачу ещё никто не доиграл.
daily-board-closes = Таблица закроется в полночь UTC.
daily-post-title = 📅 <b>Сдача дня</b> · { $date } — таблица закрыта. Лучшие в этой группе:
daily-post-row = { $game }: 🏆 { $names } — { $points } ({ $players ->
    [one] { $players } игрок
    [few] { $players } игрока
   *[other] { $players } игроков
    })
record-sealed-daily = 🔒 Хеш сида: <code>{ $hash }</code> — это сдача дня: сам сид появится здесь, когда день закончится (UTC) и этими картами больше никто не играет.

## 📈 Review after a deal (the strong computer looks at the player's own decisions)

button-review = 📈 Разбор
review-title = 📈 Разбор сдачи { $n } — { $game }, { $name }
review-summary = { $decisions ->
        [one] Просмотрено { $decisions } решение — с вашей точки зрения (ваши карты и то, что было открыто на столе)
        [few] Просмотрено { $decisions } решения — с вашей точки зрения (ваши карты и то, что было открыто на столе)
       *[many] Просмотрено { $decisions } решений — с вашей точки зрения (ваши карты и то, что было открыто на столе)
    }.
review-none = ✅ Ошибок нет: ни один ход не стоил { $mistake } очков и больше по сравнению с лучшим.
review-nothing = ✅ Разбирать нечего: в этой сдаче у вас не было выбора.
review-mistake = ⚠️ Ошибка
review-blunder = ❌ Грубая ошибка
review-at-trick = Взятка { $trick }
review-at-decision = Решение { $n }
review-row = • { $where } — { $grade }: { $played } · лучше { $best }, ≈{ $cost } очк.
review-unjudged = { $count ->
        [one] ⏳ { $count } решение осталось без оценки: компьютеры были заняты.
        [few] ⏳ { $count } решения остались без оценки: компьютеры были заняты.
       *[many] ⏳ { $count } решений остались без оценки: компьютеры были заняты.
    }
review-thresholds = Ошибка стоит не меньше { $mistake } очков, грубая — { $blunder } (ваши очки за сдачу против среднего по столу, оценка по { $worlds } раскладам, совместимым с тем, что вы видели).
review-started = 📈 Разбираю ваши решения в сдаче { $n } — ответ придёт через несколько секунд.
review-running = 📈 Разбор этой сдачи ещё идёт — минутку.
review-failed = 📈 Разбор сейчас не получился — попробуйте ещё раз.
refusal-review_players_only = 📈 Разобрать сдачу могут только те, кто в ней играл.
refusal-review_busy = 📈 Уже разбираю другую вашу сдачу — дождитесь её.

## ⚖️ Сравнение сдачи дня (ваши решения рядом с решениями лучшего игрока дня и компьютера)

button-compare = ⚖️ Сравнить
compare-title = ⚖️ Сдача { $n } — { $game }: вы, { $name } и сильный компьютер
compare-title-alone = ⚖️ Сдача { $n } — { $game }: вы и сильный компьютер
compare-rival-best = Лучший результат в этой сдаче у игрока { $name }: { $points }.
compare-rival-next = Лучший результат в этой сдаче — ваш; следом { $name }: { $points } ({ $place }-е место).
compare-alone = Эту сдачу ещё никто, кроме вас, не сыграл: рядом с каждым вашим решением — выбор сильного компьютера.
compare-aligned = Решения сопоставлены по номерам: как только вы и { $name } выбрали по-разному, партии разошлись, и дальше соперник решал уже в другой позиции. Выбор компьютера — для вашей позиции.
compare-same-one = • Решение { $n }: выбор совпал
compare-same-run = • Решения { $first }–{ $last }: выбор совпал
compare-at = Решение { $n }
compare-at-trick = Решение { $n } (взятка { $trick })
compare-row = • { $where } — вы: { $yours } · { $name }: { $theirs } · 🤖: { $computer }
compare-row-alone = • { $where } — вы: { $yours } · 🤖: { $computer }
compare-over = нет, сдача уже закончилась
compare-hidden = 🂠
compare-hidden-note = 🂠 — карта, которую вы не видели: она скрыта до конца дня (UTC).
compare-unjudged-choice = ⏳
compare-nothing = В этой сдаче у вас не было выбора: сравнивать нечего.
compare-started = ⚖️ Сравниваю вашу сдачу { $n } с другими — ответ придёт через несколько секунд.
compare-running = ⚖️ Сравнение этой сдачи ещё идёт — минутку.
compare-failed = ⚖️ Сравнение сейчас не получилось — попробуйте ещё раз.
refusal-compare_not_daily = ⚖️ Сравнивать с другими игроками можно только сдачу дня.
refusal-compare_players_only = ⚖️ Сравнить сдачу дня может только тот, кто её сыграл.
refusal-compare_not_finished = ⚖️ Сначала доиграйте сдачу дня, потом сравнивайте.
refusal-compare_busy = ⚖️ Ваш разбор или сравнение ещё идёт — дождитесь его.

## Seasons (ratings and the tally per calendar month, UTC)

season-month = { $month ->
        [1] январь
        [2] февраль
        [3] март
        [4] апрель
        [5] май
        [6] июнь
        [7] июль
        [8] август
        [9] сентябрь
        [10] октябрь
        [11] ноябрь
       *[12] декабрь
    } { $year }
top-title-chat-season = 🏆 Рейтинг этого чата · сезон: { $month }
top-title-chat-game-season = 🏆 Рейтинг этого чата · сезон: { $month } · { $game }
top-title-overall-season = 🏆 Рейтинг по всем чатам · сезон: { $month }
top-title-overall-game-season = 🏆 Рейтинг по всем чатам · сезон: { $month } · { $game }
top-season-note = В начале месяца у всех 1 500. Сезон заканчивается в полночь UTC в последний день месяца.
tally-title-season = 📊 Счёт этого чата · сезон: { $month }
tally-title-game-season = 📊 Счёт этого чата · сезон: { $month } · { $game }
season-post-title = 🏆 <b>Сезон закончился: { $month }</b>. Чемпионы этой группы:
season-post-row = { $game }: 🥇 { $names } — { $rating } ({ $players ->
    [one] { $players } игрок
    [few] { $players } игрока
   *[many] { $players } игроков
    })
season-post-next = Начался новый сезон: /top season
