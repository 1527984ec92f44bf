"""Writes the ``background`` memories of ``cjk_retrieval.json``, the haystack the hand-written ``memories``
must be found in. Run once; the output is committed, so the benchmark never depends on this script or on
``random``'s algorithm.

    python bench/data/make_cjk_background.py      # rewrites the "background" list in place

Two kinds, as a support and project assistant piles them up over a month:

* routine records from templates (orders shipped, tickets, stand-up notes, diary lines);
* siblings: for each hand-written memory that names a person or an id, three copies with every person,
  id, product model and date swapped for others — the same story about someone else's order — so that,
  as in a real support log, names and ids rather than topics tell memories apart.

Rules that keep every question's evidence complete: no record names a person of the hand-written
memories or reuses one of their ids; routine records state no product fact (warranty, price, feature);
a sibling is made only when what the question asks by (its ``anchor``) is swapped: the person for
``name``, the id for ``id``, the product model for ``product``; memories behind ``none`` questions get
none.
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path

DATA = Path(__file__).resolve().parent / "cjk_retrieval.json"
SEED = 20260402
COUNTS = {"support": 360, "project": 120, "personal": 60}
SIBLINGS = 3

SURNAMES = (
    "王李张刘陈杨黄赵周吴徐孙马朱胡郭何林高罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余"
    "杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙"
    "史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
GIVEN = [
    "伟",
    "芳",
    "娜",
    "敏",
    "静",
    "丽",
    "强",
    "磊",
    "军",
    "洋",
    "勇",
    "艳",
    "杰",
    "娟",
    "涛",
    "明",
    "超",
    "秀英",
    "霞",
    "平",
    "刚",
    "桂英",
    "建华",
    "文",
    "华",
    "红",
    "玉兰",
    "鹏",
    "辉",
    "玲",
    "婷",
    "雪",
    "琳",
    "浩",
    "宇",
    "欣怡",
    "子涵",
    "梓轩",
    "雨桐",
    "思远",
    "佳琪",
    "一鸣",
    "晓东",
    "海燕",
    "志强",
    "春梅",
    "立新",
    "晨",
    "悦",
]
PRODUCTS = [
    "华为Mate60 Pro",
    "华为P70",
    "小米14 Pro",
    "小米手环8",
    "Redmi K70",
    "iPhone 15",
    "AirPods Pro 2",
    "Apple Watch S9",
    "联想ThinkPad X1 Carbon",
    "联想小新Pro 14",
    "戴森V12吸尘器",
    "戴森吹风机HD15",
    "云鲸J4扫地机器人",
    "石头G20扫地机器人",
    "格力空调KFR-35GW",
    "美的空调KFR-26GW",
    "海尔冰箱BCD-470",
    "西门子洗衣机WM12",
    "美的电饭煲MB-FB40",
    "苏泊尔电压力锅SY-50",
    "九阳豆浆机DJ13",
    "飞利浦电动牙刷HX6730",
    "索尼耳机WH-1000XM5",
    "Kindle Paperwhite",
    "大疆Mini 4 Pro",
    "任天堂Switch OLED",
    "罗技键盘MX Keys",
    "宜家书桌LAGKAPTEN",
    "小米空气净化器4",
    "米家台灯1S",
]
CITIES = [
    "北京",
    "上海",
    "广州",
    "深圳",
    "杭州",
    "成都",
    "武汉",
    "南京",
    "西安",
    "苏州",
    "天津",
    "重庆",
    "长沙",
]
COURIERS = [("顺丰", "SF"), ("中通", "ZT"), ("圆通", "YT"), ("京东物流", "JD"), ("韵达", "YD")]
SUPPORT = [
    "客户{name}的订单{order}（{product}）已于{date}从{city}仓发货，{courier}单号{track}。",
    "客户{name}的订单{order}（{product}）已于{date}签收。",
    "{name}催促订单{order}的发货进度，已告知预计{date}出库。",
    "{name}把订单{order}的收货地址改到了{city}，已通知仓库。",
    "客户{name}取消了订单{order}（{product}），退款{amount}元已于{date}原路退回。",
    "{name}申请开具订单{order}的电子发票，已于{date}发送到邮箱。",
    "客户{name}给{product}打了五星好评，订单{order}。",
    "{name}反馈收到的{product}外包装破损，已登记工单{ticket}，等待仓库核实。",
    "工单{ticket}：{name}的{product}缺少说明书，已补发电子版。",
    "{name}申请价格保护，订单{order}补差价{amount}元，已于{date}退回。",
    "客户{name}投诉{courier}快递员态度不好，单号{track}，已转物流组处理。",
    "{name}的订单{order}因{city}仓库存不足延迟发货，已致歉并赠送一张优惠券。",
    "客户{name}询问订单{order}能否开专票，已说明需要提供公司税号。",
    "{name}的退货包裹已于{date}到达{city}仓，退货单RT-{rt}等待验货。",
    "客户{name}在{date}来电咨询{product}的使用方法，已发送视频教程。",
    "{name}希望订单{order}周末送货，已备注给{courier}。",
]
TEAM = ["罗欣", "韩冰", "唐明", "宋佳", "邓超", "高远", "杜鹏", "蒋琪", "程晨", "许可", "叶凡", "苏航"]
MODULES = [
    "订单服务",
    "搜索",
    "用户中心",
    "消息推送",
    "数据报表",
    "商品详情页",
    "购物车",
    "客服工作台",
    "后台权限",
]
PROJECT = [
    "{date}站会：{member}说{module}的接口联调已经完成。",
    "{date}站会：{member}的{module}重构还需要{n}天。",
    "{member}在{date}提交了BUG-{bug}：{module}页面在低端安卓机上加载慢。",
    "BUG-{bug}（{module}）已由{member}在{date}修复并合入主干。",
    "{member}{date}请了一天年假，{module}的值班由{member2}代替。",
    "{date}代码评审：{member}建议{module}的缓存过期时间从5分钟改为10分钟。",
    "{module}的压测结果：峰值QPS {n}000，P99延迟{n2}0毫秒。",
    "{member}负责的{module}单元测试覆盖率提升到了{pct}%。",
]
PLACES = ["海底捞", "西贝莜面村", "外婆家", "绿茶餐厅", "鼎泰丰", "太二酸菜鱼", "喜茶", "南京大牌档"]
FOODS = ["火锅", "烤鱼", "小笼包", "牛肉面", "寿司", "麻辣烫", "烧烤", "饺子"]
FILMS = ["流浪地球2", "满江红", "封神第一部", "热辣滚烫", "第二十条", "飞驰人生2"]
PERSONAL = [
    "用户{date}和朋友在{place}吃了{food}。",
    "用户{date}晚上跑步{n}公里，用时{n2}分钟。",
    "用户{date}去电影院看了《{film}》。",
    "用户{date}在{city}出差，住了一晚。",
    "用户{date}给父母打了电话，他们下个月想来{city}玩。",
    "用户{date}买了一本书《{film}幕后》。",
]
_IDS = re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,3}-?\d[\d-]{2,}\d(?!\d)")
"""Order, ticket, return, contract, bug, courier, flight and staff ids of the hand-written memories."""
_DATE = re.compile(r"(\d{1,2})月(\d{1,2})日")
PEOPLE = {
    # everyone the hand-written memories name, with what a sibling may call them instead (Chinese names
    # are drawn from the generated ones)
    "Emily Wang": ["Grace Liu", "Lucy Sun", "Helen Zhao"],
    "Tom Li": ["Kevin Zhou", "Jason Wu", "Eric Xu"],
    "David Chen": ["Frank He", "Leo Tang", "Sam Guo"],
    "田中": ["佐藤", "鈴木", "高橋"],
    "김민수": ["이영희", "박지훈", "최유진"],
    "鼎盛物流": ["恒通快运", "远航物流", "顺达仓储"],
    "恒远医疗": ["康宁医疗", "博瑞医药", "仁和健康"],
    "华东仓": ["华南仓", "华北仓", "西南仓"],
}
CORE_CHINESE = [
    "张伟",
    "李娜",
    "王强",
    "刘洋",
    "陈静",
    "杨帆",
    "赵敏",
    "黄磊",
    "周婷",
    "吴昊",
    "徐丽",
    "孙悦",
    "马超",
    "朱琳",
    "胡军",
    "郭涛",
    "何雪",
    "林峰",
    "高远",
    "罗欣",
    "韩冰",
    "宋佳",
    "唐明",
    "钱斌",
    "张丽",
    "曹阳",
    "彭静",
    "邓超",
    "阿杰",
    "小雨",
]
CORE_PRODUCTS = {
    # product models named in the hand-written memories, and others of the same kind a sibling may name
    "华为Mate60 Pro": ["华为P70 Pro", "荣耀Magic6", "OPPO Find X7"],
    "华为Mate60": ["华为P70", "荣耀90", "vivo X100"],
    "小米14 Pro": ["Redmi K70", "一加12", "iQOO 12"],
    "联想ThinkPad X1 Carbon": ["联想小新Pro 14", "戴尔XPS 13", "华为MateBook X Pro"],
    "美的电饭煲MB-FB40": ["苏泊尔电饭煲SF40", "九阳电饭煲F40", "象印电饭煲NW-QA"],
    "美的电饭煲MB-FB50": ["苏泊尔电饭煲SF50", "九阳电饭煲F50", "虎牌电饭煲JKT"],
    "云鲸J4扫地机器人": ["石头G20扫地机器人", "科沃斯T20扫地机器人", "追觅L20扫地机器人"],
    "云鲸J5": ["石头G20", "科沃斯T30", "追觅X30"],
    "格力空调KFR-35GW": ["美的空调KFR-26GW", "海尔空调KFR-50LW", "奥克斯空调KFR-32"],
    "海尔冰箱BCD-470": ["美的冰箱BCD-521", "西门子冰箱KA92", "容声冰箱BCD-529"],
    "戴森V12吸尘器": ["小米吸尘器G10", "追觅V16吸尘器", "莱克M12吸尘器"],
    "Apple Watch S9": ["华为Watch 4", "小米手表S3", "Garmin Venu 3"],
    "AirPods Pro 2": ["索尼WF-1000XM5", "华为FreeBuds Pro 3", "Bose QC Earbuds"],
    "小米手环8": ["华为手环9", "荣耀手环9", "小米手环7"],
    "飞利浦电动牙刷": ["欧乐B电动牙刷", "舒客电动牙刷", "usmile电动牙刷"],
}
NO_SIBLINGS = {"m70", "m84"}
"""Memories that state a general rule beside a name: a copy about someone else would repeat the rule."""


def _day(rng: random.Random) -> datetime:
    return datetime(2026, 3, 1, 9) + timedelta(days=rng.randrange(31), minutes=rng.randrange(600))


def main() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    core = " ".join(m["content"] for m in data["memories"])
    taken_ids = set(_IDS.findall(core))
    generated = [s + g for s in SURNAMES for g in GIVEN]
    # people of the hand-written memories stay unique to them (also inside a longer name: 罗欣 in 罗欣怡)
    reserved = {*CORE_CHINESE, *(n for n in generated if n in core)}
    names = [n for n in generated if not any(r in n for r in reserved) and n not in TEAM]
    taken_names = reserved - set(TEAM)  # the project notes may name the team, on other topics
    rng = random.Random(SEED)
    out: list[dict[str, str]] = []

    def add(kind: str, text: str, occurred_at: str | None, layer: str = "episodic") -> None:
        if set(_IDS.findall(text)) & taken_ids or any(n in text for n in taken_names):
            return
        if any(m["content"] == text for m in out) or text in core:  # a repeat would only be merged
            return
        record = {"id": f"b{len(out) + 1:03d}", "layer": layer, "content": text, "kind": kind}
        if occurred_at:
            record["occurred_at"] = occurred_at
        out.append(record)

    def at(when: datetime) -> str:
        return when.isoformat() + "+08:00"

    while sum(1 for m in out if m["kind"] == "support") < COUNTS["support"]:
        when = _day(rng)
        courier, prefix = rng.choice(COURIERS)
        text = rng.choice(SUPPORT).format(
            date=f"{when.month}月{when.day}日",
            name=rng.choice(names),
            product=rng.choice(PRODUCTS),
            order=f"DD{when:%Y%m%d}-{rng.randrange(2000, 9999)}",
            city=rng.choice(CITIES),
            courier=courier,
            track=f"{prefix}{rng.randrange(10**9, 10**10)}",
            amount=rng.choice([39, 59, 99, 129, 199, 299, 459, 899, 1299]),
            ticket=f"TK-{rng.randrange(60000, 69999)}",
            rt=rng.randrange(4000, 4999),
        )
        add("support", text, at(when))
    while sum(1 for m in out if m["kind"] == "project") < COUNTS["project"]:
        when = _day(rng)
        member, member2 = rng.sample(TEAM, 2)
        text = rng.choice(PROJECT).format(
            date=f"{when.month}月{when.day}日",
            member=member,
            member2=member2,
            module=rng.choice(MODULES),
            n=rng.randrange(2, 9),
            n2=rng.randrange(3, 9),
            bug=rng.randrange(4500, 4999),
            pct=rng.randrange(60, 95),
        )
        add("project", text, at(when))
    while sum(1 for m in out if m["kind"] == "personal") < COUNTS["personal"]:
        when = _day(rng)
        text = rng.choice(PERSONAL).format(
            date=f"{when.month}月{when.day}日",
            place=rng.choice(PLACES),
            food=rng.choice(FOODS),
            film=rng.choice(FILMS),
            city=rng.choice(CITIES),
            n=rng.randrange(3, 12),
            n2=rng.randrange(20, 70),
        )
        add("personal", text, at(when))
    anchors: dict[str, set[str]] = {}
    for q in data["questions"]:
        for memory_id in q["evidence"]:
            anchors.setdefault(memory_id, set()).add(q["anchor"])
    for m in data["memories"]:
        if m["id"] in NO_SIBLINGS or m["content"].startswith("用户") or "none" in anchors.get(m["id"], ()):
            continue
        for _ in range(SIBLINGS):
            text, swapped = _sibling(m["content"], rng, names, taken_ids)
            if swapped & {"name", "id", "product"} and anchors.get(m["id"], set()) <= swapped:
                when = datetime.fromisoformat(m["occurred_at"]) if m.get("occurred_at") else None
                if when is not None:
                    when = when.replace(day=rng.randrange(1, 29))
                # episodic, like the rest of the haystack: a semantic copy about someone else is another
                # fact, but the write path's key-less contradiction rules may take the swapped name for a
                # changed value and supersede the original, which would test those rules, not retrieval
                add("sibling", text, when.isoformat() if when else None)
    data["background"] = out
    DATA.write_text(_dump(data), encoding="utf-8")
    print(f"{len(out)} background memories written to {DATA}")


def _sibling(text: str, rng: random.Random, names: list[str], taken_ids: set[str]) -> tuple[str, set[str]]:
    """``text`` with its people, ids, product models and dates swapped; and which of those it had."""
    swapped: set[str] = set()
    chosen: dict[str, str] = {}

    def person(match: re.Match[str]) -> str:
        swapped.add("name")
        who = match.group(0)
        if who not in chosen:
            chosen[who] = rng.choice(PEOPLE[who]) if who in PEOPLE else rng.choice(names)
        return chosen[who]

    def identifier(match: re.Match[str]) -> str:
        # a neighbour of the same series: the last three digits redrawn (DD20260312-0871 → DD20260312-0534)
        swapped.add("id")
        head, tail = match.group(0)[:-3], match.group(0)[-3:]
        while True:
            new = head + re.sub(r"\d", lambda _: str(rng.randrange(10)), tail)
            if new not in taken_ids:
                return new

    def product(match: re.Match[str]) -> str:
        swapped.add("product")
        return rng.choice(CORE_PRODUCTS[match.group(0)])

    people = sorted([*CORE_CHINESE, *PEOPLE], key=len, reverse=True)
    text = re.sub("|".join(map(re.escape, people)), person, text)
    text = _IDS.sub(identifier, text)
    models = sorted(CORE_PRODUCTS, key=len, reverse=True)
    text = re.sub("|".join(map(re.escape, models)), product, text)
    text = _DATE.sub(lambda _: f"3月{rng.randrange(1, 29)}日", text)
    return text, swapped


def _dump(data: dict[str, object]) -> str:
    """One memory or question per line, so the file stays readable and diffs stay small."""
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, list):
            rows = [json.dumps(v, ensure_ascii=False) for v in value]
            lines.append(f"  {json.dumps(key)}: [")
            lines.extend(f"    {row}{',' if j < len(rows) - 1 else ''}" for j, row in enumerate(rows))
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
