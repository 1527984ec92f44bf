-- Keys compare case-insensitively (keys15 HIGH): a key is stored in lower case, the form
-- domain.limits.key_form gives every key a caller writes, moves onto or filters by from now on. Before,
-- "User.Home" and "user.home" were two keys: a value written on each left two current values of one fact.
--
-- This migration brings the keys stored before it to that form, and settles the values that meet on a
-- key because of it, so nothing stays two current values and nothing is lost:
--   1. each stored key becomes NFC, then each character its lower-case letter (Unicode's simple
--      one-to-one mapping, frozen below as a translate() table generated from key_form; ASCII-only keys
--      take the A-Z row of it) — by the table, not lower(), so the result does not depend on the
--      database's locale (lower() under LC_CTYPE C leaves "É" as it is) and equals what key_form gives
--      (tests/unit/test_key_case.py holds the two equal);
--   2. on an agent's semantic key where active values of two spellings meet, the value that began to hold
--      last (valid_from, else occurred_at, else the write time; then the later write) is the key's fact,
--      as on any key (domain.timetravel.takes_key). Each active value of another spelling becomes its past
--      value — superseded, its period ended where the fact's begins (never before its own start nor after
--      its own end, as adapters/postgres/conflicts.SUPERSEDED_END), linked `supersedes`, with its history
--      row — except that, as the write path's source rules say, an inference never replaces what the user
--      stated (linked `contradicts`, both kept, shown beside each other), and a fact that says it adds to
--      the key ("also", "as well", "too", 也, 还) is linked `related` and keeps the other (the write path's
--      additive reading, domain.contradiction.is_additive, roughly: the words are not read further here);
--   3. every renamed memory gets a history row (action 'updated', changes "key_case": from the spelling it
--      was written in, to the stored one) — not a "key" change, so a read at an earlier known_at filters
--      it by its key as it is now; the "key" changes the history already records (a memory_update that
--      moved a memory between keys) are lowered the same way, their spelling kept under "written".
-- Past values (superseded before) keep their periods: where two spellings' past periods overlap, a read at
-- such an instant shows both, as it did before. The history's actor is 'migration 029'.

CREATE OR REPLACE FUNCTION pg_temp.key_form(key text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN octet_length(key) = char_length(key)
                THEN translate(key, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
                ELSE translate(normalize(key, NFC),
        'ABCDEFGHIJKLMNOPQRSTUVWXYZÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞĀĂĄĆ'
        'ĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽƁ'
        'ƂƄƆƇƉƊƋƎƏƐƑƓƔƖƗƘƜƝƟƠƢƤƦƧƩƬƮƯƱƲƳƵƷƸƼǄǅǇǈǊǋǍǏǑǓǕǗǙǛǞǠǢǤǦǨǪǬǮǱǲ'
        'ǴǶǷǸǺǼǾȀȂȄȆȈȊȌȎȐȒȔȖȘȚȜȞȠȢȤȦȨȪȬȮȰȲȺȻȽȾɁɃɄɅɆɈɊɌɎͰͲͶͿΆΈΉΊΌΎΏΑΒΓ'
        'ΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩΪΫϏϘϚϜϞϠϢϤϦϨϪϬϮϴϷϹϺϽϾϿЀЁЂЃЄЅІЇЈЉЊЋЌЍЎЏА'
        'БВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯѠѢѤѦѨѪѬѮѰѲѴѶѸѺѼѾҀҊҌҎҐҒҔҖҘҚҜҞҠ'
        'ҢҤҦҨҪҬҮҰҲҴҶҸҺҼҾӀӁӃӅӇӉӋӍӐӒӔӖӘӚӜӞӠӢӤӦӨӪӬӮӰӲӴӶӸӺӼӾԀԂԄԆԈԊԌԎԐԒԔԖԘ'
        'ԚԜԞԠԢԤԦԨԪԬԮԱԲԳԴԵԶԷԸԹԺԻԼԽԾԿՀՁՂՃՄՅՆՇՈՉՊՋՌՍՎՏՐՑՒՓՔՕՖႠႡႢႣႤႥႦႧႨႩႪ'
        'ႫႬႭႮႯႰႱႲႳႴႵႶႷႸႹႺႻႼႽႾႿჀჁჂჃჄჅჇჍᎠᎡᎢᎣᎤᎥᎦᎧᎨᎩᎪᎫᎬᎭᎮᎯᎰᎱᎲᎳᎴᎵᎶᎷᎸᎹᎺᎻᎼᎽᎾ'
        'ᎿᏀᏁᏂᏃᏄᏅᏆᏇᏈᏉᏊᏋᏌᏍᏎᏏᏐᏑᏒᏓᏔᏕᏖᏗᏘᏙᏚᏛᏜᏝᏞᏟᏠᏡᏢᏣᏤᏥᏦᏧᏨᏩᏪᏫᏬᏭᏮᏯᏰᏱᏲᏳᏴᏵᲐᲑᲒᲓᲔ'
        'ᲕᲖᲗᲘᲙᲚᲛᲜᲝᲞᲟᲠᲡᲢᲣᲤᲥᲦᲧᲨᲩᲪᲫᲬᲭᲮᲯᲰᲱᲲᲳᲴᲵᲶᲷᲸᲹᲺᲽᲾᲿḀḂḄḆḈḊḌḎḐḒḔḖḘḚḜḞḠḢḤ'
        'ḦḨḪḬḮḰḲḴḶḸḺḼḾṀṂṄṆṈṊṌṎṐṒṔṖṘṚṜṞṠṢṤṦṨṪṬṮṰṲṴṶṸṺṼṾẀẂẄẆẈẊẌẎẐẒẔẞẠẢẤ'
        'ẦẨẪẬẮẰẲẴẶẸẺẼẾỀỂỄỆỈỊỌỎỐỒỔỖỘỚỜỞỠỢỤỦỨỪỬỮỰỲỴỶỸỺỼỾἈἉἊἋἌἍἎἏἘἙἚἛἜἝἨ'
        'ἩἪἫἬἭἮἯἸἹἺἻἼἽἾἿὈὉὊὋὌὍὙὛὝὟὨὩὪὫὬὭὮὯᾈᾉᾊᾋᾌᾍᾎᾏᾘᾙᾚᾛᾜᾝᾞᾟᾨᾩᾪᾫᾬᾭᾮᾯᾸᾹᾺ'
        'ΆᾼῈΈῊΉῌῘῙῚΊῨῩῪΎῬῸΌῺΏῼΩKÅℲⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩⅪⅫⅬⅭⅮⅯↃⒶⒷⒸⒹⒺⒻⒼⒽⒾⒿⓀⓁⓂⓃⓄⓅⓆⓇ'
        'ⓈⓉⓊⓋⓌⓍⓎⓏⰀⰁⰂⰃⰄⰅⰆⰇⰈⰉⰊⰋⰌⰍⰎⰏⰐⰑⰒⰓⰔⰕⰖⰗⰘⰙⰚⰛⰜⰝⰞⰟⰠⰡⰢⰣⰤⰥⰦⰧⰨⰩⰪⰫⰬⰭⰮⰯⱠⱢⱣⱤ'
        'ⱧⱩⱫⱭⱮⱯⱰⱲⱵⱾⱿⲀⲂⲄⲆⲈⲊⲌⲎⲐⲒⲔⲖⲘⲚⲜⲞⲠⲢⲤⲦⲨⲪⲬⲮⲰⲲⲴⲶⲸⲺⲼⲾⳀⳂⳄⳆⳈⳊⳌⳎⳐⳒⳔⳖⳘⳚⳜⳞⳠ'
        'ⳢⳫⳭⳲꙀꙂꙄꙆꙈꙊꙌꙎꙐꙒꙔꙖꙘꙚꙜꙞꙠꙢꙤꙦꙨꙪꙬꚀꚂꚄꚆꚈꚊꚌꚎꚐꚒꚔꚖꚘꚚꜢꜤꜦꜨꜪꜬꜮꜲꜴꜶꜸꜺꜼꜾꝀꝂꝄꝆꝈ'
        'ꝊꝌꝎꝐꝒꝔꝖꝘꝚꝜꝞꝠꝢꝤꝦꝨꝪꝬꝮꝹꝻꝽꝾꞀꞂꞄꞆꞋꞍꞐꞒꞖꞘꞚꞜꞞꞠꞢꞤꞦꞨꞪꞫꞬꞭꞮꞰꞱꞲꞳꞴꞶꞸꞺꞼꞾꟀꟂꟄꟅ'
        'ꟆꟇꟉꟐꟖꟘꟵＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺ𐐀𐐁𐐂𐐃𐐄𐐅𐐆𐐇𐐈𐐉𐐊𐐋𐐌𐐍𐐎𐐏𐐐𐐑𐐒𐐓𐐔𐐕𐐖𐐗𐐘𐐙𐐚'
        '𐐛𐐜𐐝𐐞𐐟𐐠𐐡𐐢𐐣𐐤𐐥𐐦𐐧𐒰𐒱𐒲𐒳𐒴𐒵𐒶𐒷𐒸𐒹𐒺𐒻𐒼𐒽𐒾𐒿𐓀𐓁𐓂𐓃𐓄𐓅𐓆𐓇𐓈𐓉𐓊𐓋𐓌𐓍𐓎𐓏𐓐𐓑𐓒𐓓𐕰𐕱𐕲𐕳𐕴𐕵𐕶𐕷𐕸𐕹𐕺'
        '𐕼𐕽𐕾𐕿𐖀𐖁𐖂𐖃𐖄𐖅𐖆𐖇𐖈𐖉𐖊𐖌𐖍𐖎𐖏𐖐𐖑𐖒𐖔𐖕𐲀𐲁𐲂𐲃𐲄𐲅𐲆𐲇𐲈𐲉𐲊𐲋𐲌𐲍𐲎𐲏𐲐𐲑𐲒𐲓𐲔𐲕𐲖𐲗𐲘𐲙𐲚𐲛𐲜𐲝𐲞𐲟𐲠𐲡𐲢𐲣'
        '𐲤𐲥𐲦𐲧𐲨𐲩𐲪𐲫𐲬𐲭𐲮𐲯𐲰𐲱𐲲𑢠𑢡𑢢𑢣𑢤𑢥𑢦𑢧𑢨𑢩𑢪𑢫𑢬𑢭𑢮𑢯𑢰𑢱𑢲𑢳𑢴𑢵𑢶𑢷𑢸𑢹𑢺𑢻𑢼𑢽𑢾𑢿𖹀𖹁𖹂𖹃𖹄𖹅𖹆𖹇𖹈𖹉𖹊𖹋𖹌'
        '𖹍𖹎𖹏𖹐𖹑𖹒𖹓𖹔𖹕𖹖𖹗𖹘𖹙𖹚𖹛𖹜𖹝𖹞𖹟𞤀𞤁𞤂𞤃𞤄𞤅𞤆𞤇𞤈𞤉𞤊𞤋𞤌𞤍𞤎𞤏𞤐𞤑𞤒𞤓𞤔𞤕𞤖𞤗𞤘𞤙𞤚𞤛𞤜𞤝𞤞𞤟𞤠𞤡',
        'abcdefghijklmnopqrstuvwxyzàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþāăąć'
        'ĉċčďđēĕėęěĝğġģĥħĩīĭįiĳĵķĺļľŀłńņňŋōŏőœŕŗřśŝşšţťŧũūŭůűųŵŷÿźżžɓ'
        'ƃƅɔƈɖɗƌǝəɛƒɠɣɩɨƙɯɲɵơƣƥʀƨʃƭʈưʊʋƴƶʒƹƽǆǆǉǉǌǌǎǐǒǔǖǘǚǜǟǡǣǥǧǩǫǭǯǳǳ'
        'ǵƕƿǹǻǽǿȁȃȅȇȉȋȍȏȑȓȕȗșțȝȟƞȣȥȧȩȫȭȯȱȳⱥȼƚⱦɂƀʉʌɇɉɋɍɏͱͳͷϳάέήίόύώαβγ'
        'δεζηθικλμνξοπρστυφχψωϊϋϗϙϛϝϟϡϣϥϧϩϫϭϯθϸϲϻͻͼͽѐёђѓєѕіїјљњћќѝўџа'
        'бвгдежзийклмнопрстуфхцчшщъыьэюяѡѣѥѧѩѫѭѯѱѳѵѷѹѻѽѿҁҋҍҏґғҕҗҙқҝҟҡ'
        'ңҥҧҩҫҭүұҳҵҷҹһҽҿӏӂӄӆӈӊӌӎӑӓӕӗәӛӝӟӡӣӥӧөӫӭӯӱӳӵӷӹӻӽӿԁԃԅԇԉԋԍԏԑԓԕԗԙ'
        'ԛԝԟԡԣԥԧԩԫԭԯաբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆⴀⴁⴂⴃⴄⴅⴆⴇⴈⴉⴊ'
        'ⴋⴌⴍⴎⴏⴐⴑⴒⴓⴔⴕⴖⴗⴘⴙⴚⴛⴜⴝⴞⴟⴠⴡⴢⴣⴤⴥⴧⴭꭰꭱꭲꭳꭴꭵꭶꭷꭸꭹꭺꭻꭼꭽꭾꭿꮀꮁꮂꮃꮄꮅꮆꮇꮈꮉꮊꮋꮌꮍꮎ'
        'ꮏꮐꮑꮒꮓꮔꮕꮖꮗꮘꮙꮚꮛꮜꮝꮞꮟꮠꮡꮢꮣꮤꮥꮦꮧꮨꮩꮪꮫꮬꮭꮮꮯꮰꮱꮲꮳꮴꮵꮶꮷꮸꮹꮺꮻꮼꮽꮾꮿᏸᏹᏺᏻᏼᏽაბგდე'
        'ვზთიკლმნოპჟრსტუფქღყშჩცძწჭხჯჰჱჲჳჴჵჶჷჸჹჺჽჾჿḁḃḅḇḉḋḍḏḑḓḕḗḙḛḝḟḡḣḥ'
        'ḧḩḫḭḯḱḳḵḷḹḻḽḿṁṃṅṇṉṋṍṏṑṓṕṗṙṛṝṟṡṣṥṧṩṫṭṯṱṳṵṷṹṻṽṿẁẃẅẇẉẋẍẏẑẓẕßạảấ'
        'ầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹỻỽỿἀἁἂἃἄἅἆἇἐἑἒἓἔἕἠ'
        'ἡἢἣἤἥἦἧἰἱἲἳἴἵἶἷὀὁὂὃὄὅὑὓὕὗὠὡὢὣὤὥὦὧᾀᾁᾂᾃᾄᾅᾆᾇᾐᾑᾒᾓᾔᾕᾖᾗᾠᾡᾢᾣᾤᾥᾦᾧᾰᾱὰ'
        'άᾳὲέὴήῃῐῑὶίῠῡὺύῥὸόὼώῳωkåⅎⅰⅱⅲⅳⅴⅵⅶⅷⅸⅹⅺⅻⅼⅽⅾⅿↄⓐⓑⓒⓓⓔⓕⓖⓗⓘⓙⓚⓛⓜⓝⓞⓟⓠⓡ'
        'ⓢⓣⓤⓥⓦⓧⓨⓩⰰⰱⰲⰳⰴⰵⰶⰷⰸⰹⰺⰻⰼⰽⰾⰿⱀⱁⱂⱃⱄⱅⱆⱇⱈⱉⱊⱋⱌⱍⱎⱏⱐⱑⱒⱓⱔⱕⱖⱗⱘⱙⱚⱛⱜⱝⱞⱟⱡɫᵽɽ'
        'ⱨⱪⱬɑɱɐɒⱳⱶȿɀⲁⲃⲅⲇⲉⲋⲍⲏⲑⲓⲕⲗⲙⲛⲝⲟⲡⲣⲥⲧⲩⲫⲭⲯⲱⲳⲵⲷⲹⲻⲽⲿⳁⳃⳅⳇⳉⳋⳍⳏⳑⳓⳕⳗⳙⳛⳝⳟⳡ'
        'ⳣⳬⳮⳳꙁꙃꙅꙇꙉꙋꙍꙏꙑꙓꙕꙗꙙꙛꙝꙟꙡꙣꙥꙧꙩꙫꙭꚁꚃꚅꚇꚉꚋꚍꚏꚑꚓꚕꚗꚙꚛꜣꜥꜧꜩꜫꜭꜯꜳꜵꜷꜹꜻꜽꜿꝁꝃꝅꝇꝉ'
        'ꝋꝍꝏꝑꝓꝕꝗꝙꝛꝝꝟꝡꝣꝥꝧꝩꝫꝭꝯꝺꝼᵹꝿꞁꞃꞅꞇꞌɥꞑꞓꞗꞙꞛꞝꞟꞡꞣꞥꞧꞩɦɜɡɬɪʞʇʝꭓꞵꞷꞹꞻꞽꞿꟁꟃꞔʂ'
        'ᶎꟈꟊꟑꟗꟙꟶａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ𐐨𐐩𐐪𐐫𐐬𐐭𐐮𐐯𐐰𐐱𐐲𐐳𐐴𐐵𐐶𐐷𐐸𐐹𐐺𐐻𐐼𐐽𐐾𐐿𐑀𐑁𐑂'
        '𐑃𐑄𐑅𐑆𐑇𐑈𐑉𐑊𐑋𐑌𐑍𐑎𐑏𐓘𐓙𐓚𐓛𐓜𐓝𐓞𐓟𐓠𐓡𐓢𐓣𐓤𐓥𐓦𐓧𐓨𐓩𐓪𐓫𐓬𐓭𐓮𐓯𐓰𐓱𐓲𐓳𐓴𐓵𐓶𐓷𐓸𐓹𐓺𐓻𐖗𐖘𐖙𐖚𐖛𐖜𐖝𐖞𐖟𐖠𐖡'
        '𐖣𐖤𐖥𐖦𐖧𐖨𐖩𐖪𐖫𐖬𐖭𐖮𐖯𐖰𐖱𐖳𐖴𐖵𐖶𐖷𐖸𐖹𐖻𐖼𐳀𐳁𐳂𐳃𐳄𐳅𐳆𐳇𐳈𐳉𐳊𐳋𐳌𐳍𐳎𐳏𐳐𐳑𐳒𐳓𐳔𐳕𐳖𐳗𐳘𐳙𐳚𐳛𐳜𐳝𐳞𐳟𐳠𐳡𐳢𐳣'
        '𐳤𐳥𐳦𐳧𐳨𐳩𐳪𐳫𐳬𐳭𐳮𐳯𐳰𐳱𐳲𑣀𑣁𑣂𑣃𑣄𑣅𑣆𑣇𑣈𑣉𑣊𑣋𑣌𑣍𑣎𑣏𑣐𑣑𑣒𑣓𑣔𑣕𑣖𑣗𑣘𑣙𑣚𑣛𑣜𑣝𑣞𑣟𖹠𖹡𖹢𖹣𖹤𖹥𖹦𖹧𖹨𖹩𖹪𖹫𖹬'
        '𖹭𖹮𖹯𖹰𖹱𖹲𖹳𖹴𖹵𖹶𖹷𖹸𖹹𖹺𖹻𖹼𖹽𖹾𖹿𞤢𞤣𞤤𞤥𞤦𞤧𞤨𞤩𞤪𞤫𞤬𞤭𞤮𞤯𞤰𞤱𞤲𞤳𞤴𞤵𞤶𞤷𞤸𞤹𞤺𞤻𞤼𞤽𞤾𞤿𞥀𞥁𞥂𞥃')
           END
$$;

CREATE TEMP TABLE key_case ON COMMIT DROP AS
    SELECT id, tenant_id, agent_id, layer, key AS written, pg_temp.key_form(key) AS key
    FROM memories
    WHERE key IS NOT NULL AND (key ~ '[A-Z]' OR octet_length(key) <> char_length(key))
      AND key <> pg_temp.key_form(key);

-- the active semantic values of every key a renamed memory joins, with the spelling each was written in
CREATE TEMP TABLE key_case_values ON COMMIT DROP AS
    SELECT m.id, m.tenant_id, m.agent_id, coalesce(c.key, m.key) AS key, m.key AS written, m.source,
           m.content, coalesce(m.valid_from, m.occurred_at, m.created_at) AS since, m.created_at
    FROM memories m LEFT JOIN key_case c ON c.id = m.id
    WHERE m.layer = 'semantic' AND m.status = 'active' AND m.key IS NOT NULL
      AND (m.tenant_id, m.agent_id, coalesce(c.key, m.key)) IN (
          SELECT tenant_id, agent_id, key FROM key_case WHERE layer = 'semantic');

-- per key met by two spellings: its fact (began to hold last), and each active value of another spelling
CREATE TEMP TABLE key_case_settled ON COMMIT DROP AS
    WITH fact AS (
        SELECT DISTINCT ON (tenant_id, agent_id, key) *
        FROM key_case_values
        ORDER BY tenant_id, agent_id, key, since DESC, created_at DESC, id DESC)
    SELECT o.id AS old_id, f.id AS new_id, o.tenant_id, f.since AS until,
           CASE WHEN f.content ~* '\m(also|as well|too|additionally)\M' OR f.content ~ '[也还]' THEN 'related'
                WHEN f.source = 'agent_inferred' AND o.source = 'user_stated' THEN 'contradicts'
                ELSE 'supersedes' END AS kind
    FROM fact f JOIN key_case_values o
      ON (o.tenant_id, o.agent_id, o.key) = (f.tenant_id, f.agent_id, f.key) AND o.written <> f.written;

CREATE TEMP TABLE key_case_ended ON COMMIT DROP AS
    WITH before AS (
        SELECT m.id, m.valid_to FROM memories m JOIN key_case_settled s ON s.old_id = m.id
        WHERE s.kind = 'supersedes'),
    ended AS (
        UPDATE memories m SET status = 'superseded', updated_at = now(),
               valid_to = least(m.valid_to, greatest(s.until, coalesce(m.valid_from, m.occurred_at, m.created_at)))
        FROM key_case_settled s
        WHERE s.old_id = m.id AND s.kind = 'supersedes'
        RETURNING m.id, m.tenant_id, m.valid_to)
    SELECT e.id, e.tenant_id, b.valid_to AS before, e.valid_to AS after FROM ended e JOIN before b ON b.id = e.id;

INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason)
    SELECT tenant_id, new_id, old_id, kind,
           CASE kind WHEN 'supersedes' THEN 'newer fact on the same key (written in another case)'
                     WHEN 'contradicts' THEN 'the user''s statement disagrees with a later inference on the same '
                                             'key (written in another case); both kept'
                     ELSE 'adds to the fact on the same key (written in another case)' END
    FROM key_case_settled
    ON CONFLICT (from_id, to_id, kind) DO NOTHING;

INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor)
    SELECT e.id, e.tenant_id, 'superseded', 'superseded by ' || s.new_id || ' (same key, written in another case)',
           jsonb_build_object('status', jsonb_build_object('from', 'active', 'to', 'superseded'))
           || CASE WHEN e.after IS DISTINCT FROM e.before
                   THEN jsonb_build_object('valid_to', jsonb_build_object('from', e.before, 'to', e.after))
                   ELSE '{}'::jsonb END,
           'migration 029'
    FROM key_case_ended e JOIN key_case_settled s ON s.old_id = e.id;

UPDATE memories m SET key = c.key, updated_at = now() FROM key_case c WHERE c.id = m.id;

INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor)
    SELECT id, tenant_id, 'updated', 'key stored in lower case: keys compare case-insensitively',
           jsonb_build_object('key_case', jsonb_build_object('from', written, 'to', key)), 'migration 029'
    FROM key_case;

UPDATE memory_history h
    SET changes = jsonb_set(h.changes, '{key}',
        (h.changes -> 'key')
        || jsonb_build_object('from', to_jsonb(pg_temp.key_form(h.changes -> 'key' ->> 'from')),
                              'to', to_jsonb(pg_temp.key_form(h.changes -> 'key' ->> 'to')),
                              'written', jsonb_build_object('from', h.changes -> 'key' -> 'from',
                                                            'to', h.changes -> 'key' -> 'to')))
    WHERE jsonb_typeof(h.changes -> 'key') = 'object'
      AND (h.changes -> 'key' ->> 'from' IS DISTINCT FROM pg_temp.key_form(h.changes -> 'key' ->> 'from')
           OR h.changes -> 'key' ->> 'to' IS DISTINCT FROM pg_temp.key_form(h.changes -> 'key' ->> 'to'));

DROP FUNCTION pg_temp.key_form(text);
