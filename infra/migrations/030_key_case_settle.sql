-- Keys written in another case after migration 029 (h-keys): 029 lowered every stored key once, but between
-- the migration and the code swap the old code still stores a key as written ("User.Home"), and the new code,
-- which compares the stored form ("user.home"), would not see it. This migration keeps 029's rule in the
-- schema as two functions, and the scheduled maintenance (step ``key_case``, adapters/postgres/maintenance/
-- key_case.py) calls the second on every scope, so such a key is brought to the stored form at the next
-- maintenance run and its value settles with the key's others exactly as 029 settled them:
--   hindsight_key_form(key)   domain.limits.key_form in SQL: 029's translate() table, unchanged
--                             (tests/unit/test_key_case.py holds 029's, this one and key_form equal);
--   hindsight_settle_key_case(tenant, agent, actor)
--                             029's steps 1-3 on one (tenant, agent) scope: lower the scope's keys not in
--                             stored form; where active semantic values of two spellings meet on a key, the
--                             value that began to hold last is the fact and each active value of another
--                             spelling becomes its past value (superseded, ended where the fact begins, linked
--                             `supersedes`, history) — except an inference never replaces what the user stated
--                             (`contradicts`, both kept) and a fact that says it adds ("also", …) keeps the
--                             other (`related`); a history row `key_case` {from, to} per renamed memory, and
--                             the "key" changes of those memories' history lowered, their spelling kept under
--                             "written". Returns one row per renamed memory (link 'renamed', new_id NULL) and
--                             per settled pair (old_id: the other spelling's value, new_id: the fact, link:
--                             the relation made, ended_before: the old value's valid_to before it was ended).
-- A bounded fact (one with a valid_to) that began inside an older value's period ends that value where it
-- begins; the write path then lets the older value hold again after the bounded one
-- (adapters/postgres/key_resume.resume_after: a continuation row). That split copies every column and chunk
-- of the live schema, so it stays in Python, in one place: the maintenance step calls resume_after with the
-- rows returned here (old_id, ended_before) — the same call the write path makes with a bounded value's
-- replaced facts — so a key settled by maintenance ends as it would had the values been written on one
-- spelling. (029 itself ran without it: docs/maintenance.md, step `key_case`.)
-- Nothing here changes a row: the functions are only defined. No table is rewritten.

CREATE OR REPLACE FUNCTION hindsight_key_form(key text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
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

CREATE OR REPLACE FUNCTION hindsight_settle_key_case(p_tenant text, p_agent text, p_actor text)
    RETURNS TABLE (old_id uuid, new_id uuid, link text, ended_before timestamptz)
    LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
    -- the scope's keyed rows, through memories_key (tenant_id, agent_id, key): nothing to do, nothing made
    IF NOT EXISTS (SELECT 1 FROM memories m
                   WHERE m.tenant_id = p_tenant AND m.agent_id = p_agent AND m.key IS NOT NULL
                     AND (m.key ~ '[A-Z]' OR octet_length(m.key) <> char_length(m.key))
                     AND m.key <> hindsight_key_form(m.key)) THEN
        RETURN;
    END IF;
    DROP TABLE IF EXISTS pg_temp.hindsight_key_case, pg_temp.hindsight_key_case_values,
                         pg_temp.hindsight_key_case_settled, pg_temp.hindsight_key_case_ended;

    CREATE TEMP TABLE hindsight_key_case ON COMMIT DROP AS
        SELECT m.id, m.tenant_id, m.agent_id, m.layer, m.key AS written, hindsight_key_form(m.key) AS key
        FROM memories m
        WHERE m.tenant_id = p_tenant AND m.agent_id = p_agent AND m.key IS NOT NULL
          AND (m.key ~ '[A-Z]' OR octet_length(m.key) <> char_length(m.key))
          AND m.key <> hindsight_key_form(m.key);

    -- the active semantic values of every key a renamed memory joins, with the spelling each was written in
    CREATE TEMP TABLE hindsight_key_case_values ON COMMIT DROP AS
        SELECT m.id, m.tenant_id, m.agent_id, coalesce(c.key, m.key) AS key, m.key AS written, m.source,
               m.content, coalesce(m.valid_from, m.occurred_at, m.created_at) AS since, m.created_at
        FROM memories m LEFT JOIN hindsight_key_case c ON c.id = m.id
        WHERE m.tenant_id = p_tenant AND m.agent_id = p_agent
          AND m.layer = 'semantic' AND m.status = 'active' AND m.key IS NOT NULL
          AND coalesce(c.key, m.key) IN (SELECT c2.key FROM hindsight_key_case c2 WHERE c2.layer = 'semantic');

    -- per key met by two spellings: its fact (began to hold last), and each active value of another spelling
    CREATE TEMP TABLE hindsight_key_case_settled ON COMMIT DROP AS
        WITH fact AS (
            SELECT DISTINCT ON (v.key) v.*
            FROM hindsight_key_case_values v
            ORDER BY v.key, v.since DESC, v.created_at DESC, v.id DESC)
        SELECT o.id AS old_id, f.id AS new_id, o.tenant_id, f.since AS until,
               CASE WHEN f.content ~* '\m(also|as well|too|additionally)\M' OR f.content ~ '[也还]'
                    THEN 'related'
                    WHEN f.source = 'agent_inferred' AND o.source = 'user_stated' THEN 'contradicts'
                    ELSE 'supersedes' END AS kind
        FROM fact f JOIN hindsight_key_case_values o ON o.key = f.key AND o.written <> f.written;

    CREATE TEMP TABLE hindsight_key_case_ended ON COMMIT DROP AS
        WITH before AS (
            SELECT m.id, m.valid_to FROM memories m JOIN hindsight_key_case_settled s ON s.old_id = m.id
            WHERE s.kind = 'supersedes'),
        ended AS (
            UPDATE memories m SET status = 'superseded', updated_at = now(),
                   valid_to = least(m.valid_to,
                                    greatest(s.until, coalesce(m.valid_from, m.occurred_at, m.created_at)))
            FROM hindsight_key_case_settled s
            WHERE s.old_id = m.id AND s.kind = 'supersedes'
            RETURNING m.id, m.tenant_id, m.valid_to)
        SELECT e.id, e.tenant_id, b.valid_to AS before, e.valid_to AS after
        FROM ended e JOIN before b ON b.id = e.id;

    INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason)
        SELECT s.tenant_id, s.new_id, s.old_id, s.kind,
               CASE s.kind WHEN 'supersedes' THEN 'newer fact on the same key (written in another case)'
                           WHEN 'contradicts' THEN 'the user''s statement disagrees with a later inference on '
                                                   'the same key (written in another case); both kept'
                           ELSE 'adds to the fact on the same key (written in another case)' END
        FROM hindsight_key_case_settled s
        ON CONFLICT (from_id, to_id, kind) DO NOTHING;

    INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor)
        SELECT e.id, e.tenant_id, 'superseded',
               'superseded by ' || s.new_id || ' (same key, written in another case)',
               jsonb_build_object('status', jsonb_build_object('from', 'active', 'to', 'superseded'))
               || CASE WHEN e.after IS DISTINCT FROM e.before
                       THEN jsonb_build_object('valid_to', jsonb_build_object('from', e.before, 'to', e.after))
                       ELSE '{}'::jsonb END,
               p_actor
        FROM hindsight_key_case_ended e JOIN hindsight_key_case_settled s ON s.old_id = e.id;

    UPDATE memories m SET key = c.key, updated_at = now() FROM hindsight_key_case c WHERE c.id = m.id;

    INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor)
        SELECT c.id, c.tenant_id, 'updated', 'key stored in lower case: keys compare case-insensitively',
               jsonb_build_object('key_case', jsonb_build_object('from', c.written, 'to', c.key)), p_actor
        FROM hindsight_key_case c;

    -- a move between keys the old code recorded (memory_update) names the keys as written: lowered as 029 did
    UPDATE memory_history h
        SET changes = jsonb_set(h.changes, '{key}',
            (h.changes -> 'key')
            || jsonb_build_object('from', to_jsonb(hindsight_key_form(h.changes -> 'key' ->> 'from')),
                                  'to', to_jsonb(hindsight_key_form(h.changes -> 'key' ->> 'to')),
                                  'written', jsonb_build_object('from', h.changes -> 'key' -> 'from',
                                                                'to', h.changes -> 'key' -> 'to')))
        WHERE h.tenant_id = p_tenant AND h.memory_id IN (SELECT c.id FROM hindsight_key_case c)
          AND jsonb_typeof(h.changes -> 'key') = 'object'
          AND (h.changes -> 'key' ->> 'from' IS DISTINCT FROM hindsight_key_form(h.changes -> 'key' ->> 'from')
               OR h.changes -> 'key' ->> 'to' IS DISTINCT FROM hindsight_key_form(h.changes -> 'key' ->> 'to'));

    RETURN QUERY
        SELECT c.id, NULL::uuid, 'renamed'::text, NULL::timestamptz FROM hindsight_key_case c
        UNION ALL
        SELECT s.old_id, s.new_id, s.kind, e.before
        FROM hindsight_key_case_settled s LEFT JOIN hindsight_key_case_ended e ON e.id = s.old_id;

    DROP TABLE hindsight_key_case, hindsight_key_case_values, hindsight_key_case_settled,
               hindsight_key_case_ended;
END
$fn$;

-- maintenance runs as hindsight_app (migration 004), under row-level security: the caller's tenant only
GRANT EXECUTE ON FUNCTION hindsight_key_form(text), hindsight_settle_key_case(text, text, text) TO hindsight_app;
