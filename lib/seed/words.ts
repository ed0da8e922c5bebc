/**
 * Word lists for the demo world. Names come from many languages so the directory looks like a real
 * international community; everything else is made-up platform flavour.
 */

export const FIRST_NAMES = [
  "Amara", "Aiko", "Alejandro", "Amelia", "Anders", "Ananya", "Aroha", "Astrid", "Ayodele", "Bashir",
  "Beatriz", "Benedikt", "Bilal", "Bo", "Camille", "Carmen", "Chidi", "Chloé", "Colm", "Dalia",
  "Damian", "Dara", "Dmitri", "Ebru", "Elif", "Elio", "Emeka", "Esme", "Farah", "Felix",
  "Femi", "Finn", "Freya", "Gabriel", "Giulia", "Grace", "Hamid", "Hana", "Harper", "Hiroshi",
  "Ida", "Ilse", "Imani", "Ines", "Isak", "Jae", "Jamal", "Javier", "Jonas", "Josefina",
  "Juniper", "Kai", "Kalani", "Karim", "Katya", "Kenji", "Kiri", "Lars", "Layla", "Leila",
  "Leon", "Lina", "Lorenzo", "Luca", "Lucía", "Mads", "Maeve", "Malik", "Mara", "Marek",
  "Mateo", "Maya", "Mei", "Mila", "Minh", "Mira", "Nadia", "Naledi", "Nico", "Nils",
  "Noor", "Oisín", "Olu", "Omar", "Oskar", "Paloma", "Pavel", "Priya", "Quinn", "Rafael",
  "Rania", "Ravi", "Reza", "Rhea", "Rin", "Rosa", "Ruben", "Saanvi", "Sakura", "Samir",
  "Sana", "Santiago", "Saoirse", "Selin", "Seo-yeon", "Sipho", "Sofia", "Soren", "Tariq", "Tess",
  "Thandiwe", "Theo", "Tomás", "Uma", "Valentina", "Vikram", "Wanjiru", "Wei", "Xavier", "Yara",
  "Yasmin", "Yusuf", "Zainab", "Zara", "Zeynep", "Zoë", "Ezra", "Iris", "Otto", "Rowan",
];

export const LAST_NAMES = [
  "Abara", "Adeyemi", "Alvarez", "Andersson", "Arslan", "Bakker", "Banerjee", "Becker", "Bianchi", "Bondarenko",
  "Brennan", "Castillo", "Chen", "Costa", "Dahl", "Delacroix", "Demir", "Diallo", "Dubois", "Eriksen",
  "Fernández", "Fischer", "Fitzgerald", "Fujimoto", "García", "Gonzaga", "Gupta", "Haddad", "Hansen", "Hartmann",
  "Hayashi", "Hernández", "Horvat", "Ibrahim", "Ito", "Ivanova", "Jansen", "Jovanović", "Kamau", "Kapoor",
  "Karlsson", "Kaya", "Khalil", "Kim", "Kowalski", "Kuznetsov", "Laine", "Larsen", "Le", "Lindqvist",
  "Lopes", "Mahlangu", "Mansour", "Martins", "Mbeki", "Moreau", "Murphy", "Nakamura", "Navarro", "Nguyen",
  "Nielsen", "Novak", "Nowak", "Obi", "O'Connor", "Okafor", "Olsen", "Ortiz", "Özdemir", "Park",
  "Patel", "Pereira", "Petrov", "Quispe", "Rahman", "Ramos", "Reyes", "Rossi", "Sato", "Schmidt",
  "Silva", "Singh", "Sokolova", "Suzuki", "Takahashi", "Tanaka", "Te Rangi", "Tran", "Vargas", "Varga",
  "Virtanen", "Vogel", "Wagner", "Walsh", "Watanabe", "Weber", "Wiśniewski", "Yamamoto", "Yilmaz", "Zhang",
];

/** Nicknames and words people put in handles. */
export const HANDLE_WORDS = [
  "pixel", "moss", "fern", "static", "neon", "quill", "ember", "orbit", "cobalt", "lichen",
  "tidal", "echo", "nova", "maple", "cinder", "drift", "lumen", "basalt", "juniper", "wren",
  "sprocket", "glitch", "pebble", "comet", "sable", "thistle", "kiln", "pylon", "marrow", "nimbus",
  "beetle", "scarab", "hammer", "lantern", "harbor", "vapor", "saffron", "quartz", "otter", "falcon",
];

export const HANDLE_SUFFIXES = ["dev", "codes", "makes", "plays", "draws", "irl", "hq", "xyz", "games", "lab"];

export const LOCATIONS = [
  "Lagos, Nigeria", "Lisbon, Portugal", "Osaka, Japan", "Montréal, Canada", "Nairobi, Kenya", "Berlin, Germany",
  "São Paulo, Brazil", "Bengaluru, India", "Melbourne, Australia", "Reykjavík, Iceland", "Seoul, South Korea",
  "Mexico City, Mexico", "Cape Town, South Africa", "Helsinki, Finland", "Istanbul, Türkiye", "Dublin, Ireland",
  "Buenos Aires, Argentina", "Wellington, New Zealand", "Kraków, Poland", "Taipei, Taiwan", "Austin, USA",
  "Glasgow, Scotland", "Accra, Ghana", "Hanoi, Vietnam", "Tallinn, Estonia", "Porto, Portugal", "Lyon, France",
  "Medellín, Colombia", "Vancouver, Canada", "Copenhagen, Denmark", "Singapore", "Manila, Philippines",
  "Cairo, Egypt", "Amman, Jordan", "Kyiv, Ukraine", "Rotterdam, Netherlands", "Valparaíso, Chile", "Oslo, Norway",
  "Portland, USA", "Chennai, India", "somewhere with good wifi", "the internet", "on a train, probably", "",
];

export const BIO_ROLES = [
  "backend developer", "indie game dev", "student", "illustrator", "sysadmin", "data nerd", "frontend tinkerer",
  "product designer", "retired teacher", "night-shift nurse", "chef", "bike mechanic", "musician", "speedrunner",
  "moderator", "open-source maintainer", "3D artist", "hobbyist photographer", "security researcher", "translator",
];

export const BIO_INTERESTS = [
  "Beetle card collector", "xcraft redstone engineer", "mechanical keyboards", "sourdough experiments",
  "retro consoles", "birdwatching", "bouldering", "synthesizers", "tabletop RPGs", "urban sketching",
  "houseplants", "type theory", "pixel art", "fermentation", "film cameras", "long-distance running",
  "speedcubing", "lo-fi beats", "Rust and coffee", "bad puns", "chess variants", "cozy games", "trail maps",
];

export const BIO_FLOURISHES = [
  "Ask me about my hammer collection.", "DMs open for collabs.", "Probably online.", "Posting mostly in global chat.",
  "He/him.", "She/her.", "They/them.", "Building small tools for big communities.", "Here for the cards.",
  "Level grinder, proud of it.", "Will trade duplicates.", "Lurker turned poster.", "", "", "",
];

export const ACHIEVEMENTS = [
  { code: "first_post", name: "First words", description: "Posted your first message in global chat." },
  { code: "chatterbox", name: "Chatterbox", description: "Posted 100 messages in global chat." },
  { code: "friendly", name: "Friendly", description: "Made your first friend." },
  { code: "social_butterfly", name: "Social butterfly", description: "Have 25 friends." },
  { code: "poke_master", name: "Poke master", description: "Poked 50 different people." },
  { code: "beetle_novice", name: "Beetle novice", description: "Reached level 5 in the Beetle game." },
  { code: "beetle_veteran", name: "Beetle veteran", description: "Reached level 20 in the Beetle game." },
  { code: "card_collector", name: "Card collector", description: "Discovered 10 Beetle cards." },
  { code: "legendary_find", name: "Legendary find", description: "Discovered a legendary Beetle card." },
  { code: "hammer_time", name: "Hammer time", description: "Wore out your first hammer." },
  { code: "night_owl", name: "Night owl", description: "Posted between 2 and 4 in the morning." },
  { code: "early_bird", name: "Early bird", description: "Joined in the platform's first month." },
  { code: "builder", name: "Builder", description: "Placed 10,000 blocks in xcraft." },
  { code: "explorer", name: "Explorer", description: "Visited every xcraft biome." },
  { code: "cult_initiate", name: "Cult initiate", description: "Own a token from an ethereum collection." },
  { code: "merch_fan", name: "Merch fan", description: "Ordered something from the merch store." },
  { code: "thread_starter", name: "Thread starter", description: "Started a thread on xchan that got 50 replies." },
  { code: "microblogger", name: "Microblogger", description: "Published 500 microblog posts." },
  { code: "verified_builder", name: "App builder", description: "Registered an app in the developer portal." },
  { code: "anniversary", name: "One year in", description: "Member for a year." },
] as const;

export const CARD_RARITIES = [
  ["common", 55],
  ["uncommon", 25],
  ["rare", 12],
  ["epic", 6],
  ["legendary", 2],
] as const;

export const BEETLE_CARDS = [
  { codename: "stag_major", name: "Stag Major", rarity: "common" },
  { codename: "dung_roller", name: "Dung Roller", rarity: "common" },
  { codename: "ladybird", name: "Ladybird", rarity: "common" },
  { codename: "click_beetle", name: "Click Beetle", rarity: "common" },
  { codename: "leaf_chewer", name: "Leaf Chewer", rarity: "common" },
  { codename: "bark_borer", name: "Bark Borer", rarity: "common" },
  { codename: "pill_bug_impostor", name: "Pill Bug (Impostor)", rarity: "common" },
  { codename: "garden_chafer", name: "Garden Chafer", rarity: "common" },
  { codename: "water_strider", name: "Water Strider", rarity: "common" },
  { codename: "june_bug", name: "June Bug", rarity: "common" },
  { codename: "firefly", name: "Firefly", rarity: "uncommon" },
  { codename: "tiger_beetle", name: "Tiger Beetle", rarity: "uncommon" },
  { codename: "bombardier", name: "Bombardier", rarity: "uncommon" },
  { codename: "diving_beetle", name: "Diving Beetle", rarity: "uncommon" },
  { codename: "longhorn", name: "Longhorn", rarity: "uncommon" },
  { codename: "soldier_beetle", name: "Soldier Beetle", rarity: "uncommon" },
  { codename: "whirligig", name: "Whirligig", rarity: "uncommon" },
  { codename: "jewel_beetle", name: "Jewel Beetle", rarity: "rare" },
  { codename: "rhino_beetle", name: "Rhino Beetle", rarity: "rare" },
  { codename: "violin_beetle", name: "Violin Beetle", rarity: "rare" },
  { codename: "glow_worm_queen", name: "Glow-worm Queen", rarity: "rare" },
  { codename: "frost_weevil", name: "Frost Weevil", rarity: "rare" },
  { codename: "hercules", name: "Hercules", rarity: "epic" },
  { codename: "goliath", name: "Goliath", rarity: "epic" },
  { codename: "rainbow_stag", name: "Rainbow Stag", rarity: "epic" },
  { codename: "obsidian_scarab", name: "Obsidian Scarab", rarity: "epic" },
  { codename: "golden_scarab", name: "Golden Scarab", rarity: "legendary" },
  { codename: "titan_beetle", name: "Titan Beetle", rarity: "legendary" },
  { codename: "the_ancient_one", name: "The Ancient One", rarity: "legendary" },
] as const;

export const BEETLE_ITEMS = [
  "dirt_clump", "amber_shard", "leaf_bundle", "sap_vial", "iron_nail", "copper_wire", "moon_dust",
  "spare_handle", "whetstone", "mystery_egg", "beetle_treat", "lucky_clover",
];

export const HAMMER_KINDS = [
  ["wooden", 40],
  ["stone", 80],
  ["iron", 150],
  ["golden", 60],
  ["diamond", 400],
] as const;

export const BEETLE_ACTIONS = ["dig", "forage", "battle", "trade", "daily_bonus"];

export const GUILD_NAMES = [
  "The Night Shift", "Beetle Brigade", "Redstone Republic", "Order of the Hammer", "Sourdough Syndicate",
  "Pixel Pushers", "Moss Collective", "Cult of the Golden Scarab", "Lo-fi Lounge", "Speedrun Society",
];

export const CULT_TIERS = ["none", "initiate", "acolyte", "zealot", "high_priest"] as const;
export const ETH_COLLECTIONS = ["pixel_punks", "chain_beetles", "moon_cats", "xcraft_lands", "glitch_gardens"];
export const MERCH_ITEMS = ["hoodie", "beetle_plush", "sticker_pack", "mug", "cap", "enamel_pin", "poster"];
export const XCHAN_BOARDS = ["/g/", "/v/", "/ck/", "/diy/", "/mu/", "/tg/", "/beetle/"];
export const XCRAFT_BIOMES = ["plains", "taiga", "badlands", "mushroom_fields", "deep_dark", "cherry_grove", "ocean"];

export const SYSTEM_MESSAGES = [
  "Scheduled maintenance on Sunday 03:00 UTC: chat may be read-only for 15 minutes.",
  "New Beetle season: the Frost Weevil card can now be found while digging.",
  "Your data export is ready to download from account settings.",
  "We updated the community guidelines. Be kind, no spam.",
  "Two-step sign-in is coming to the platform next month.",
];

/** Whole chat lines (sentence fragments glued together read like a bot). */
export const CHAT_LINES = [
  "the Golden Scarab drop rate is way lower than the wiki says",
  "my iron hammer broke after like three digs",
  "the new xcraft update changed how water flows again",
  "global chat is the best part of this site",
  "someone poked me 4 times yesterday, I see you",
  "PSA: the Beetle daily bonus resets at midnight UTC, not local time",
  "I finally hit level 20!",
  "is the leaderboard showing yesterday's scores for anyone else?",
  "trading a Rainbow Stag card for anything legendary",
  "who's up for a raid on the Redstone Republic server tonight?",
  "TIL you can stack lucky clovers for better forage rolls",
  "hot take: diamond hammers are only worth it if you dig every day",
  "the merch hoodie is actually really warm",
  "my sourdough starter is older than my account",
  "the developer portal approved my app in under an hour",
  "the API docs have a nice quickstart now",
  "the Night Shift guild is recruiting, ping me",
  "been grinding xcraft all weekend and I regret nothing",
  "my cat walked across the keyboard and posted in xchan",
  "nobody believes me about the Ancient One card",
  "morning everyone ☕",
  "anyone else up this late?",
  "just pulled a Jewel Beetle on my first dig of the day",
  "does anyone know if the Frost Weevil is only in the snow biome?",
  "small win today: fixed the bug that haunted me all week",
  "lowkey obsessed with the new chat colours",
  "finally beat the deep dark without dying",
  "who else is building something with the API?",
  "reminder to drink water and take breaks",
  "the microblog trending tab is chaos today",
  "what's everyone's favourite Beetle card and why is it the Violin Beetle",
  "my ethereum cult tier went up, no idea what that means",
  "can someone explain how guild invites work?",
  "the view from the xcraft castle we built last night",
  "I keep forgetting my hammer durability and breaking them mid-dig",
  "new personal best on the speedrun, 14:32",
  "anyone want to swap Firefly duplicates?",
  "the dark theme on the portal is so good",
  "my app got rejected because I forgot the redirect URI, lesson learned",
  "weekend plans: sleep, dig, repeat",
];

export const CHAT_EDIT_NOTES = [" (edit: typo)", " — edit: nvm, found it", " edit: it was the iron one", " (edited for spelling)", ""];

export const CHAT_CLOSERS = ["", "", "", " lol", " 😅", " !!", "…", " (no regrets)", " ngl", " 🪲", " gg", " send help"];

export const CHAT_REPLIES = [
  "same here", "wait really?", "source?", "congrats!! 🎉", "this is the way", "hard agree", "nope, not for me",
  "I've been saying this for weeks", "screenshot or it didn't happen", "ok this made me laugh", "big if true",
  "sending you a friend request", "let's trade", "can confirm", "that happened to me too", "how long did that take?",
  "rip your hammer", "welcome back!", "wrong channel but I love it", "ty for the tip",
];

export const REACTION_EMOJI = ["👍", "😂", "❤️", "🔥", "🪲", "🎉", "👀", "😮", "🙏", "💯"];

export const MEDIA_SUBJECTS = [
  "sunset-over-the-harbor", "beetle-card-pull", "xcraft-castle", "sourdough-crumb", "desk-setup", "cat-on-keyboard",
  "hammer-collection", "guild-meetup", "pixel-art-wip", "trail-view", "merch-hoodie", "level-up",
];
